import { createDocument } from "../support/http-expect.js";
import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { BASE, BASE_TEXT, DOCUMENTS, expectAccepted, expectConflict, insert, readDocument, remove, replace, stalePatches, text } from "../support/content-patch.js";

/* Rule 2 of PATCH …/content: a stale patch shifted over the foreign versions. True overlaps: content-conflict.test.ts. */

const t = appPerTest();
const { patchOf, afterForeign, stale } = stalePatches(t);

describe("PATCH /documents/{documentId}/content: rule 2, a stale base without true overlap", () => {
  it("shifts the submitted ops over the foreign ones, applies them and answers 200 with the foreign ops", async () => {
    const id = await afterForeign([insert(1, "f1", "f2")]);

    const response = await stale(id, [replace(5, 1, "S5")]);

    expectAccepted(response, 3, [insert(1, "f1", "f2")]);
    expect(await readDocument(t.app, id)).toMatchObject({ version: 3, content: text("l0", "f1", "f2", "l1", "l2", "l3", "l4", "S5", "l6", "l7") });
  });

  it("accepts a stale patch that deletes every line after a foreign version did the same, with no new version", async () => {
    // A version that took out every line is recorded as putting one empty line in (docs/line-model.md#deleting-every-line).
    const id = await afterForeign([remove(0, 8)]);

    const response = await stale(id, [remove(0, 8)]);

    expectAccepted(response, 2, [replace(0, 8, "")]);
    expect(await readDocument(t.app, id)).toMatchObject({ version: 2, content: "" });
  });

  it("answers each of many stale patches sent together the composition of the versions before its own", async () => {
    const id = await afterForeign([replace(0, 1, "F")]);
    // Lines that do not touch each other or line 0, so that the compositions keep one op per change.
    const lines = [2, 4, 6];

    const responses = await Promise.all(lines.map((line) => stale(id, [replace(line, 1, `S${line}`)])));

    // Whatever order they ran in, the one that got version 3 + k saw the foreign version and the k before it.
    const ran = responses.map((response, k) => ({ line: lines[k]!, version: response.json<{ version: number }>().version })).sort((a, b) => a.version - b.version);
    expect(ran.map((one) => one.version)).toEqual([3, 4, 5]);
    ran.forEach((one, k) => {
      const earlier = ran.slice(0, k).map((other) => other.line).sort((a, b) => a - b);
      expectAccepted(responses[lines.indexOf(one.line)]!, one.version, [replace(0, 1, "F"), ...earlier.map((line) => replace(line, 1, `S${line}`))]);
    });
    expect(await readDocument(t.app, id)).toMatchObject({ version: 5, content: text("F", "l1", "S2", "l3", "S4", "l5", "S6", "l7") });
  });

  it("answers the composition of every version after the base, expressed against the base", async () => {
    const id = await afterForeign([replace(1, 1, "X")]);
    // Version 3 deletes "l3", which is line 3 of version 2 as well.
    expectAccepted(await patchOf(id, "client-g", 2, text("l0", "X", "l2", "l3", "l4", "l5", "l6", "l7"), [remove(3, 1)]), 3);

    const response = await stale(id, [replace(6, 1, "S6")]);

    expectAccepted(response, 4, [replace(1, 1, "X"), remove(3, 1)]);
    expect((await readDocument(t.app, id)).content).toBe(text("l0", "X", "l2", "l4", "l5", "S6", "l7"));
  });

  it("shifts ops before, between and after the foreign ones by the line-count change before each", async () => {
    const id = await afterForeign([remove(2, 2), insert(6, "f6a", "f6b", "f6c")]);

    const response = await stale(id, [replace(0, 1, "S0"), replace(4, 1, "S4"), remove(7, 1)]);

    expectAccepted(response, 3, [remove(2, 2), insert(6, "f6a", "f6b", "f6c")]);
    expect((await readDocument(t.app, id)).content).toBe(text("S0", "l1", "S4", "l5", "f6a", "f6b", "f6c", "l6"));
  });

  it("accepts ranges that only touch a foreign range, on either side", async () => {
    const id = await afterForeign([replace(2, 2, "F")]);

    const response = await stale(id, [replace(0, 2, "S0"), replace(4, 1, "S4")]);

    expectAccepted(response, 3, [replace(2, 2, "F")]);
    expect((await readDocument(t.app, id)).content).toBe(text("S0", "F", "S4", "l5", "l6", "l7"));
  });

  it("accepts a foreign range that only touches a submitted one, on either side", async () => {
    const id = await afterForeign([remove(1, 1), replace(4, 1, "F4")]);

    const response = await stale(id, [replace(2, 2, "S2", "S3", "S3b")]);

    expectAccepted(response, 3, [remove(1, 1), replace(4, 1, "F4")]);
    expect((await readDocument(t.app, id)).content).toBe(text("l0", "S2", "S3", "S3b", "F4", "l5", "l6", "l7"));
  });

  it("puts an insert at the start of a foreign range before it and one at its end after it", async () => {
    const id = await afterForeign([replace(2, 2, "F")]);

    const response = await stale(id, [insert(2, "before"), insert(4, "after")]);

    expectAccepted(response, 3, [replace(2, 2, "F")]);
    expect((await readDocument(t.app, id)).content).toBe(text("l0", "l1", "before", "F", "after", "l4", "l5", "l6", "l7"));
  });

  it("puts a foreign insert at the start or end of a submitted range before or after it", async () => {
    const id = await afterForeign([insert(2, "f-before"), insert(4, "f-after")]);

    const response = await stale(id, [remove(2, 2)]);

    expectAccepted(response, 3, [insert(2, "f-before"), insert(4, "f-after")]);
    expect((await readDocument(t.app, id)).content).toBe(text("l0", "l1", "f-before", "f-after", "l4", "l5", "l6", "l7"));
  });

  it("puts the foreign lines first when both insert at one index", async () => {
    const id = await afterForeign([insert(3, "foreign")]);

    const response = await stale(id, [insert(3, "mine")]);

    expectAccepted(response, 3, [insert(3, "foreign")]);
    expect((await readDocument(t.app, id)).content).toBe(text("l0", "l1", "l2", "foreign", "mine", "l3", "l4", "l5", "l6", "l7"));
  });

  it("puts the foreign lines first when both append at the end", async () => {
    const id = await afterForeign([insert(8, "foreign")]);

    const response = await stale(id, [insert(8, "mine")]);

    expectAccepted(response, 3, [insert(8, "foreign")]);
    expect((await readDocument(t.app, id)).content).toBe(text(...BASE, "foreign", "mine"));
  });

  it("drops a change the foreign versions already made, records no version and answers with the head", async () => {
    const id = await afterForeign([replace(2, 1, "same")]);

    const response = await stale(id, [replace(2, 1, "same")]);

    expectAccepted(response, 2, [replace(2, 1, "same")]);
    const document = await readDocument(t.app, id);
    expect(document).toMatchObject({ version: 2, content: text("l0", "l1", "same", "l3", "l4", "l5", "l6", "l7") });
    expect(document.content.split("same")).toHaveLength(2);
    expect(await t.store.reads(id).version(3)).toBeUndefined();
  });

  it("drops an identical insert once, so the text holds the inserted line once", async () => {
    const id = await afterForeign([insert(3, "shared")]);

    const response = await stale(id, [insert(3, "shared")]);

    expectAccepted(response, 2, [insert(3, "shared")]);
    expect((await readDocument(t.app, id)).content).toBe(text("l0", "l1", "l2", "shared", "l3", "l4", "l5", "l6", "l7"));
  });

  it("drops an identical change however either side split it into ops, and applies the rest of the patch", async () => {
    const id = await afterForeign([replace(2, 2, "X", "Y")]);

    const response = await stale(id, [replace(2, 1, "X"), replace(3, 1, "Y"), replace(6, 1, "S6")]);

    expectAccepted(response, 3, [replace(2, 2, "X", "Y")]);
    expect((await readDocument(t.app, id)).content).toBe(text("l0", "l1", "X", "Y", "l4", "l5", "S6", "l7"));
  });

  it("answers 409 rather than dropping a change that covers the same range with different lines", async () => {
    const id = await afterForeign([replace(2, 1, "theirs")]);

    expectConflict(await stale(id, [replace(2, 1, "mine")]), 2, [replace(2, 1, "theirs")]);
  });

  it("rebases over a rename, whose version changes no line, with an empty opsSinceBase", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: BASE_TEXT })).id;
    const renamed = await t.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: { title: "Renamed", expectedVersion: 1 } });
    expect(renamed.statusCode).toBe(200);

    const response = await stale(id, [replace(0, 1, "S0")]);

    expectAccepted(response, 3, []);
    expect(await readDocument(t.app, id)).toMatchObject({ version: 3, title: "Renamed", content: text("S0", ...BASE.slice(1)) });
  });

  it("rebases over a PUT, whose version records the line diff of the whole-text change", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: BASE_TEXT })).id;
    const put = await t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title: "Notes", content: text("P0", ...BASE.slice(1)) } });
    expect(put.statusCode).toBe(200);

    const response = await stale(id, [replace(7, 1, "S7")]);

    expectAccepted(response, 3, [replace(0, 1, "P0")]);
    expect((await readDocument(t.app, id)).content).toBe(text("P0", ...BASE.slice(1, 7), "S7"));
  });
});
