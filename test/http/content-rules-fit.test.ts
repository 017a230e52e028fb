import { describe, expect, it } from "vitest";
import { createDocument } from "../support/http-expect.js";
import { appPerTest } from "../support/app-per-test.js";
import {
  RULES_TEXT as TEXT,
  checksumOf,
  contentUrl,
  expectAccepted,
  expectProblem,
  insert,
  patchContent,
  readDocument,
  replace,
  rulesBody as body,
} from "../support/content-patch.js";

/* PATCH …/content, a patch that does not fit: rule 4 (422, the base; docs/interface.md#patch-content) and the size limit (413). */

const t = appPerTest();

describe("PATCH /documents/{documentId}/content: rule 4, 422 when the base does not fit", () => {
  it("answers 422 when the checksum of a current base does not match, and writes nothing", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([replace(0, 1, "A")], { checksum: checksumOf("alpha\nbeta") }));

    expectProblem(response, "checksum-mismatch", contentUrl(id), "checksum does not match the text of base version 1; reload the document");
    expect(await readDocument(t.app, id)).toMatchObject({ version: 1, content: TEXT });
  });

  it("answers 422 when the checksum of a stale base does not match that base's text", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([replace(0, 1, "A")])), 2, []);

    // The checksum of the current text is not the checksum of base version 1.
    const response = await patchContent(t.app, id, body([replace(2, 1, "G")], { seq: 2, checksum: checksumOf("A\nbeta\ngamma") }));

    expectProblem(response, "checksum-mismatch", contentUrl(id), "checksum does not match the text of base version 1; reload the document");
    expect(await readDocument(t.app, id)).toMatchObject({ version: 2, content: "A\nbeta\ngamma" });
  });

  it("answers 422 when a range of a current base reaches past the end of the text", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([replace(2, 2, "G")]));

    expectProblem(response, "range-outside-text", contentUrl(id), "ops[0]: the range [2, 4) reaches past the end of the text, which has 3 lines");
    expect((await readDocument(t.app, id)).version).toBe(1);
  });

  it("answers 422 when an insert of a current base lies beyond the append position", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([insert(4, "far")]));

    expectProblem(response, "range-outside-text", contentUrl(id), "ops[0]: index 4 is outside the text, which has 3 lines");
  });

  it("answers 422 when a range of a stale base lies outside that base, although it would fit the longer current text", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([insert(3, "delta", "epsilon")])), 2, []);

    const response = await patchContent(t.app, id, body([replace(3, 1, "D")], { seq: 2 }));

    expectProblem(response, "range-outside-text", contentUrl(id), "op at index 3 with count 1 is outside the base text of 3 lines");
    expect((await readDocument(t.app, id)).version).toBe(2);
  });

  it("answers 422 when an insert of a stale base lies beyond that base's append position", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, body([insert(3, "delta")])), 2, []);

    const response = await patchContent(t.app, id, body([insert(4, "far")], { seq: 2 }));

    expectProblem(response, "range-outside-text", contentUrl(id), "op at index 4 with count 0 is outside the base text of 3 lines");
  });

  it("answers 422 when the base version is ahead of the head", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([replace(0, 1, "A")], { baseVersion: 2 }));

    expectProblem(response, "base-unavailable", contentUrl(id), "base version 2 does not exist; the current version is 1");
  });

  it("answers 422 when the base version is 0", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const response = await patchContent(t.app, id, body([insert(0, "A")], { baseVersion: 0, checksum: checksumOf("") }));

    expectProblem(response, "base-unavailable", contentUrl(id), "base version 0 does not exist; the current version is 1");
  });
});

describe("PATCH /documents/{documentId}/content: the size limit", () => {
  // Its own app, with a small limit (the file's default app is built too, as for every test).
  const t = appPerTest({ config: (config) => (config.documents.maxContentBytes = 20) });

  it("answers 413 when the patched content would exceed max-content-bytes, and writes nothing", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "0123456789" })).id;

    const response = await patchContent(t.app, id, { ...body([insert(1, "abcdefghij")]), checksum: checksumOf("0123456789") });

    expectProblem(response, "content-too-large", contentUrl(id), "the patched content would be 21 bytes; the limit is 20");
    expect(await readDocument(t.app, id)).toMatchObject({ version: 1, content: "0123456789" });
  });

  it("answers 413 for a request body far larger than the service accepts", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "0123456789" })).id;

    const response = await patchContent(t.app, id, { ...body([insert(1, "x".repeat(100_000))]), checksum: checksumOf("0123456789") });

    expectProblem(response, "content-too-large", contentUrl(id), "the request body is larger than the service accepts");
  });

  it("accepts a patched content of exactly max-content-bytes, counted in UTF-8 bytes", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "0123456789" })).id;

    // "ä" is two UTF-8 bytes: 10 + 1 (the newline) + 9 = 20 bytes.
    const response = await patchContent(t.app, id, { ...body([insert(1, "ääää-")]), checksum: checksumOf("0123456789") });

    expectAccepted(response, 2);
    expect((await readDocument(t.app, id)).content).toBe("0123456789\nääää-");
  });
});
