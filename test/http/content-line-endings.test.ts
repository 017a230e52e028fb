import { createDocument } from "../support/http-expect.js";
import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { checksumOf, contentUrl, expectAccepted, expectProblem, patchContent, readDocument, replace } from "../support/content-patch.js";

/* PATCH …/content on texts with CRLF and lone CR: the checksum is of the LF text (docs/line-model.md#checksum). */

const t = appPerTest();

describe("PATCH /documents/{documentId}/content: line endings and checksums", () => {
  it("takes the checksum of the LF text for a CRLF document, refuses the CRLF checksum with 422, and stores the patch result with LF", async () => {
    const crlf = "one\r\ntwo\r\nthree\r\n";
    const lf = "one\ntwo\nthree\n";
    const id = (await createDocument(t.app, { title: "Notes", content: crlf })).id;
    // The content round-trips exactly (docs/interface.md#history-and-milestones); the checksum is of its LF form (docs/line-model.md#checksum).
    expect((await readDocument(t.app, id)).content).toBe(crlf);

    const refused = await patchContent(t.app, id, { baseVersion: 1, checksum: checksumOf(crlf), clientId: "client-a", seq: 1, ops: [replace(1, 1, "TWO")] });
    expectProblem(refused, "checksum-mismatch", contentUrl(id), "checksum does not match the text of base version 1; reload the document");

    const accepted = await patchContent(t.app, id, { baseVersion: 1, checksum: checksumOf(lf), clientId: "client-a", seq: 2, ops: [replace(1, 1, "TWO")] });
    expectAccepted(accepted, 2, []);
    expect((await readDocument(t.app, id)).content).toBe("one\nTWO\nthree\n");
    expect((await t.store.reads(id).version(2))?.checksum).toBe(checksumOf("one\nTWO\nthree\n"));
  });

  it("checks a stale CRLF base against the checksum of its LF text too", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "one\r\ntwo\r\nthree" })).id;
    expectAccepted(await patchContent(t.app, id, { baseVersion: 1, checksum: checksumOf("one\ntwo\nthree"), clientId: "a", seq: 1, ops: [replace(0, 1, "ONE")] }), 2);

    const refused = await patchContent(t.app, id, { baseVersion: 1, checksum: checksumOf("one\r\ntwo\r\nthree"), clientId: "b", seq: 1, ops: [replace(2, 1, "THREE")] });
    const accepted = await patchContent(t.app, id, { baseVersion: 1, checksum: checksumOf("one\ntwo\nthree"), clientId: "b", seq: 2, ops: [replace(2, 1, "THREE")] });

    expectProblem(refused, "checksum-mismatch", contentUrl(id), "checksum does not match the text of base version 1; reload the document");
    expectAccepted(accepted, 3, [replace(0, 1, "ONE")]);
    expect((await readDocument(t.app, id)).content).toBe("ONE\ntwo\nTHREE");
  });

  it("keeps a lone CR inside a line of the base text: it is content, not a line break", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: "a\rb\nc" })).id;

    const response = await patchContent(t.app, id, { baseVersion: 1, checksum: checksumOf("a\rb\nc"), clientId: "a", seq: 1, ops: [replace(1, 1, "C")] });

    expectAccepted(response, 2, []);
    expect((await readDocument(t.app, id)).content).toBe("a\rb\nC");
  });
});
