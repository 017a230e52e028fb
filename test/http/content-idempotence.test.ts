import { createDocument } from "../support/http-expect.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { ManualClock } from "../support/manual-clock.js";
import { appPerTest } from "../support/app-per-test.js";
import { buildTestApp } from "../support/test-app.js";
import { checksumOf, contentUrl, expectAccepted, expectProblem, insert, patchContent, readDocument, remove, replace, type PatchBody } from "../support/content-patch.js";

const t = appPerTest();

const TEXT = "alpha\nbeta\ngamma";

function first(changes: Partial<PatchBody> = {}): PatchBody {
  return { baseVersion: 1, checksum: checksumOf(TEXT), clientId: "client-a", seq: 1, displayName: "Ann", ops: [replace(1, 1, "BETA")], ...changes };
}

/** Every stored version number of the document. */
async function versionNumbers(id: string): Promise<number[]> {
  const head = (await t.store.reads(id).document())?.version ?? 0;
  return (await t.store.reads(id).versions(0, head)).map((record) => record.version);
}

describe("PATCH /documents/{documentId}/content: rule 5, a repeat of clientId and seq", () => {
  it("answers a repeat with the stored earlier result and writes nothing", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first()), 2, []);

    const repeat = await patchContent(t.app, id, first());

    expectAccepted(repeat, 2, []);
    expect(await readDocument(t.app, id)).toMatchObject({ version: 2, content: "alpha\nBETA\ngamma" });
    expect(await versionNumbers(id)).toEqual([1, 2]);
  });

  it("answers a repeat with the earlier result after the document moved on, not with the current state", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first()), 2, []);
    expectAccepted(await patchContent(t.app, id, first({ clientId: "client-b", baseVersion: 2, checksum: checksumOf("alpha\nBETA\ngamma"), ops: [remove(0, 1)] })), 3);

    expectAccepted(await patchContent(t.app, id, first()), 2, []);
    expect(await readDocument(t.app, id)).toMatchObject({ version: 3, content: "BETA\ngamma" });
  });

  it("answers a repeat of a rebased patch with the same foreign ops as the first answer", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first({ clientId: "client-b", ops: [insert(0, "top")] })), 2);
    expectAccepted(await patchContent(t.app, id, first()), 3, [insert(0, "top")]);
    expectAccepted(await patchContent(t.app, id, first({ clientId: "client-c", baseVersion: 3, checksum: checksumOf("top\nalpha\nBETA\ngamma"), ops: [remove(0, 1)] })), 4);

    expectAccepted(await patchContent(t.app, id, first()), 3, [insert(0, "top")]);
    expect(await versionNumbers(id)).toEqual([1, 2, 3, 4]);
    expect((await readDocument(t.app, id)).content).toBe("alpha\nBETA\ngamma");
  });

  it("answers a repeat of a change that was dropped as already made with the same answer, still writing nothing", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first({ clientId: "client-b" })), 2);
    expectAccepted(await patchContent(t.app, id, first()), 2, [replace(1, 1, "BETA")]);

    expectAccepted(await patchContent(t.app, id, first()), 2, [replace(1, 1, "BETA")]);
    expect(await versionNumbers(id)).toEqual([1, 2]);
  });

  it("answers a repeat of a milestone with the stored result and records no second milestone", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first({ milestone: true, ops: [] })), 2);

    expectAccepted(await patchContent(t.app, id, first({ milestone: true, ops: [] })), 2);
    expect(await versionNumbers(id)).toEqual([1, 2]);
  });

  it("treats a resend with its fields in another order and an ignored field spelled out as the same request", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first({ ops: [insert(3, "delta")] })), 2);

    const reordered = { ops: [{ lines: ["delta"], index: 3, op: "insert", count: 7 }], seq: 1, displayName: "Ann", clientId: "client-a", checksum: checksumOf(TEXT), baseVersion: 1 };

    expectAccepted(await patchContent(t.app, id, reordered), 2);
    expect(await versionNumbers(id)).toEqual([1, 2]);
  });

  it("answers identical patches sent at the same moment with one answer and one version", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;

    const responses = await Promise.all([1, 2, 3, 4].map(() => patchContent(t.app, id, first())));

    for (const response of responses) expectAccepted(response, 2, []);
    expect(await versionNumbers(id)).toEqual([1, 2]);
    expect((await readDocument(t.app, id)).content).toBe("alpha\nBETA\ngamma");
  });

  it("answers repeats and new patches sent together, each by its own receipt", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first()), 2, []);
    const other = first({ clientId: "client-b", baseVersion: 2, checksum: checksumOf("alpha\nBETA\ngamma"), ops: [remove(0, 1)] });

    const [repeat, fresh, freshAgain, repeatAgain] = await Promise.all([first(), other, other, first()].map((body) => patchContent(t.app, id, body)));

    expectAccepted(repeat!, 2, []);
    expectAccepted(fresh!, 3, []);
    expectAccepted(freshAgain!, 3, []);
    expectAccepted(repeatAgain!, 2, []);
    expect(await versionNumbers(id)).toEqual([1, 2, 3]);
    expect((await readDocument(t.app, id)).content).toBe("BETA\ngamma");
  });

  it("keeps the seq of one client apart from the same seq of another client and of another document", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    const other = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first()), 2);

    expectAccepted(await patchContent(t.app, id, first({ clientId: "client-b", baseVersion: 2, checksum: checksumOf("alpha\nBETA\ngamma"), ops: [remove(0, 1)] })), 3);
    expectAccepted(await patchContent(t.app, other, first({ ops: [remove(2, 1)] })), 2);

    expect((await readDocument(t.app, id)).content).toBe("BETA\ngamma");
    expect((await readDocument(t.app, other)).content).toBe("alpha\nbeta");
  });

  it("answers the stored result to a repeat just before the retention period ends, after compaction ran", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first()), 2);
    t.clock.advance(t.config.history.retentionSeconds * 1000 - 1);
    await t.services.compactor.runOnce();

    expectAccepted(await patchContent(t.app, id, first()), 2);
    expect(await versionNumbers(id)).toEqual([1, 2]);
  });

  it("answers a repeat of a shifted patch from the versions it was shifted over, which compaction keeps until its receipt expires", async () => {
    const retentionMs = t.config.history.retentionSeconds * 1000;
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first({ clientId: "client-b", ops: [insert(0, "top")] })), 2);
    expectAccepted(await patchContent(t.app, id, first({ clientId: "client-c", baseVersion: 2, checksum: checksumOf(`top\n${TEXT}`), ops: [insert(4, "end")] })), 3);
    // A pause: version 3 becomes a milestone when the next patch arrives, version 2 stays a sync version.
    t.clock.advance(retentionMs / 4);
    const shifted = [insert(0, "top"), insert(3, "end")];
    expectAccepted(await patchContent(t.app, id, first()), 4, shifted);
    // The receipt keeps where its answer comes from, not the answer (docs/architecture.md, "Receipts").
    expect(await t.store.reads(id).receipt("client-a", 1)).toMatchObject({ shiftedOver: { base: 1, through: 3 } });

    // Version 2 is past the retention period now, the receipt is not: compaction leaves its ops.
    t.clock.advance(retentionMs);
    await t.services.compactor.runOnce();
    expect((await t.store.reads(id).version(2))?.ops).toEqual([{ index: 0, count: 0, lines: ["top"] }]);
    expectAccepted(await patchContent(t.app, id, first()), 4, shifted);

    // The receipt has expired: the run that deletes it keeps its versions, the run after it clears them
    // (the run the clock set off, if any, and two more).
    t.clock.advance(retentionMs / 4);
    await t.services.compactor.runOnce();
    expect(await t.store.reads(id).receipt("client-a", 1)).toBeUndefined();
    await t.services.compactor.runOnce();
    expect((await t.store.reads(id).version(2))?.ops).toBeNull();
    expect(await versionNumbers(id)).toEqual([1, 2, 3, 4]);
  });

  it("keeps the ops in the receipt of a patch whose base is in the older half of the retention period", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first({ clientId: "client-b", ops: [insert(0, "top")] })), 2);
    t.clock.advance((t.config.history.retentionSeconds * 1000 * 3) / 4);
    expectAccepted(await patchContent(t.app, id, first()), 3, [insert(0, "top")]);

    const receipt = await t.store.reads(id).receipt("client-a", 1);
    expect(receipt?.shiftedOver).toBeUndefined();
    expect(receipt?.opsSinceBase).toEqual([{ index: 0, count: 0, lines: ["top"] }]);
    expectAccepted(await patchContent(t.app, id, first()), 3, [insert(0, "top")]);
  });
});

describe("PATCH /documents/{documentId}/content: a seq reused for a different body", () => {
  const reuses: [string, Partial<PatchBody>][] = [
    ["other ops", { ops: [replace(1, 1, "Beta")] }],
    ["another base version", { baseVersion: 2, checksum: checksumOf("alpha\nBETA\ngamma") }],
    ["another checksum", { checksum: checksumOf("alpha\nBETA\ngamma") }],
    ["milestone: true added", { milestone: true }],
    ["another displayName", { displayName: "Bo" }],
  ];

  it.each(reuses)("answers 409 seq-reused for a repeat with %s, and applies nothing", async (_name, change) => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(t.app, id, first()), 2);

    const response = await patchContent(t.app, id, first(change));

    expectProblem(response, "seq-reused", contentUrl(id), "seq 1 of client client-a was already used for a different patch");
    expect(await readDocument(t.app, id)).toMatchObject({ version: 2, content: "alpha\nBETA\ngamma" });
    expect(await versionNumbers(id)).toEqual([1, 2]);
  });

  it("accepts one of two different bodies sent with one seq at the same moment and answers the other 409 seq-reused", async () => {
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    const bodies = [first(), first({ ops: [remove(0, 1)] })];
    const texts = ["alpha\nBETA\ngamma", "beta\ngamma"];

    const responses = await Promise.all(bodies.map((body) => patchContent(t.app, id, body)));

    // Which one the service takes first is up to the scheduling; exactly one is applied.
    const winner = responses.findIndex((response) => response.statusCode === 200);
    expect(winner).toBeGreaterThanOrEqual(0);
    expectAccepted(responses[winner]!, 2);
    expectProblem(responses[1 - winner]!, "seq-reused", contentUrl(id), "seq 1 of client client-a was already used for a different patch");
    expect((await readDocument(t.app, id)).content).toBe(texts[winner]);
    expect(await versionNumbers(id)).toEqual([1, 2]);
  });
});

describe("PATCH /documents/{documentId}/content: a repeat after a restart", () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "folio-content-"));
  });

  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("answers the stored result from the file-backed store after the service restarted, and writes nothing", async () => {
    const path = join(directory, "service.db");
    const clock = new ManualClock();
    const before = await buildTestApp({ store: SqliteStore.open(path), clock });
    const id = (await createDocument(before.app, { title: "Notes", content: TEXT })).id;
    expectAccepted(await patchContent(before.app, id, first({ clientId: "client-b", ops: [insert(0, "top")] })), 2);
    expectAccepted(await patchContent(before.app, id, first()), 3, [insert(0, "top")]);
    await before.close();

    const after = await buildTestApp({ store: SqliteStore.open(path), clock });
    try {
      expectAccepted(await patchContent(after.app, id, first()), 3, [insert(0, "top")]);
      expectProblem(await patchContent(after.app, id, first({ ops: [remove(0, 1)] })), "seq-reused", contentUrl(id), "seq 1 of client client-a was already used for a different patch");
      expect(await readDocument(after.app, id)).toMatchObject({ version: 3, content: "top\nalpha\nBETA\ngamma" });
      expect((await after.store.reads(id).versions(0, 10)).map((record) => record.version)).toEqual([1, 2, 3]);
    } finally {
      await after.close();
    }
  });
});
