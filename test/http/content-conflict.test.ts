import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { BASE, BASE_TEXT, checksumOf, expectAccepted, expectConflict, insert, patchContent, readDocument, readHistory, remove, replace, stalePatches, text } from "../support/content-patch.js";

/* Rule 3 of PATCH …/content: a stale patch that truly overlaps a foreign version. Shifted patches: content-rebase.test.ts. */

const t = appPerTest();
const { patchOf, afterForeign, stale } = stalePatches(t);

describe("PATCH /documents/{documentId}/content: rule 3, a true overlap", () => {
  async function expectNothingWritten(id: string, version: number, content: string, historyBefore: unknown): Promise<void> {
    expect(await readDocument(t.app, id)).toMatchObject({ version, content });
    expect(await readHistory(t.app, id)).toEqual(historyBefore);
    expect(await t.store.reads(id).version(version + 1)).toBeUndefined();
  }

  it("answers 409 ContentConflict with the foreign ops when two ranges intersect, and writes nothing", async () => {
    const id = await afterForeign([replace(2, 2, "F")]);
    const current = text("l0", "l1", "F", "l4", "l5", "l6", "l7");
    const history = await readHistory(t.app, id);

    const response = await stale(id, [replace(3, 1, "S3")]);

    expectConflict(response, 2, [replace(2, 2, "F")]);
    await expectNothingWritten(id, 2, current, history);
  });

  it("answers 409 when a submitted insert lies inside a foreign range", async () => {
    const id = await afterForeign([remove(2, 3)]);
    const history = await readHistory(t.app, id);

    expectConflict(await stale(id, [insert(3, "S")]), 2, [remove(2, 3)]);
    await expectNothingWritten(id, 2, text("l0", "l1", "l5", "l6", "l7"), history);
  });

  it("answers 409 when a foreign insert lies inside a submitted range", async () => {
    const id = await afterForeign([insert(3, "F")]);

    expectConflict(await stale(id, [replace(2, 2, "S2", "S3")]), 2, [insert(3, "F")]);
  });

  it("answers 409 when one op of several overlaps, and applies none of them", async () => {
    const id = await afterForeign([replace(5, 1, "F5")]);
    const history = await readHistory(t.app, id);

    expectConflict(await stale(id, [replace(0, 1, "S0"), remove(4, 2)]), 2, [replace(5, 1, "F5")]);
    await expectNothingWritten(id, 2, text("l0", "l1", "l2", "l3", "l4", "F5", "l6", "l7"), history);
  });

  it("answers 409 with the composed ops of every version after the base and the current version", async () => {
    const id = await afterForeign([insert(0, "top")]);
    expectAccepted(await patchOf(id, "client-g", 2, text("top", ...BASE), [replace(4, 1, "G3")]), 3);

    const response = await stale(id, [remove(3, 1)]);

    expectConflict(response, 3, [insert(0, "top"), replace(3, 1, "G3")]);
  });

  it("answers 409 again when the conflicting patch is resent: a conflict keeps no receipt", async () => {
    const id = await afterForeign([replace(2, 1, "F")]);
    const resend = { baseVersion: 1, checksum: checksumOf(BASE_TEXT), clientId: "client-s", seq: 99, ops: [replace(2, 1, "S")] };

    expectConflict(await patchContent(t.app, id, resend), 2, [replace(2, 1, "F")]);
    expectConflict(await patchContent(t.app, id, resend), 2, [replace(2, 1, "F")]);
    expect(await t.store.reads(id).receipt("client-s", 99)).toBeUndefined();
  });

  it("lets the client force its change after a conflict with a patch against the current version", async () => {
    const id = await afterForeign([replace(2, 1, "F")]);
    expectConflict(await stale(id, [replace(2, 1, "S")]), 2, [replace(2, 1, "F")]);

    const forced = await patchOf(id, "client-s", 2, text("l0", "l1", "F", "l3", "l4", "l5", "l6", "l7"), [replace(2, 1, "S")]);

    expectAccepted(forced, 3, []);
    expect((await readDocument(t.app, id)).content).toBe(text("l0", "l1", "S", "l3", "l4", "l5", "l6", "l7"));
  });
});
