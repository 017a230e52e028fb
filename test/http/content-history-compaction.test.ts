import { describe, expect, it } from "vitest";
import { expectJson } from "../support/http-expect.js";
import { appPerTest } from "../support/app-per-test.js";
import { buildTestApp } from "../support/test-app.js";
import {
  ContentEditor,
  DOCUMENTS,
  PAUSE_MS,
  RETENTION_MS,
  checksumOf,
  contentUrl,
  expectAccepted,
  expectProblem,
  historyTimes,
  patchContent,
  readDocument,
  readHistory,
  replace,
} from "../support/content-patch.js";

/*
 * Compaction of the history of PATCH …/content after the retention period: what it clears, what it
 * keeps, and what the service answers then. The pause and what versions store: content-history.test.ts.
 */

const t = appPerTest({ config: historyTimes });

describe("compaction after the retention period", () => {
  /** A document with a CREATED milestone and sync versions 2..5 a second apart, all older than the retention period. */
  async function oldSyncVersions(): Promise<ContentEditor> {
    const editor = await ContentEditor.create(t.app, "a\nb\nc\nd");
    for (const [index, line] of [[0, "A"], [1, "B"], [2, "C"], [3, "D"]] as const) {
      t.clock.advance(1000);
      await editor.setLine(index, line);
    }
    return editor;
  }

  async function compactAfterRetention(): Promise<void> {
    t.clock.advance(RETENTION_MS + 1);
    await t.services.compactor.runOnce();
  }

  it("drops the ops of old sync versions: a patch based on one answers 422", async () => {
    const editor = await oldSyncVersions();
    await compactAfterRetention();

    const response = await patchContent(t.app, editor.id, { baseVersion: 3, checksum: checksumOf("A\nB\nc\nd"), clientId: "client-b", seq: 1, ops: [replace(3, 1, "x")] });

    expectProblem(response, "base-unavailable", contentUrl(editor.id), "base version 3 was compacted; reload the document");
    expect((await t.store.reads(editor.id).version(3))?.ops).toBeNull();
    expect((await readDocument(t.app, editor.id)).version).toBe(5);
  });

  it("answers 422 for a base whose own ops are kept when the versions after it were compacted", async () => {
    const editor = await oldSyncVersions();
    await compactAfterRetention();

    const response = await patchContent(t.app, editor.id, { baseVersion: 1, checksum: checksumOf("a\nb\nc\nd"), clientId: "client-b", seq: 1, ops: [replace(3, 1, "x")] });

    expectProblem(response, "base-unavailable", contentUrl(editor.id), "the versions after base 1 were compacted; reload the document");
  });

  it("keeps accepting patches based on the head, which keeps its ops", async () => {
    const editor = await oldSyncVersions();
    await compactAfterRetention();

    await editor.setLine(0, "AA");

    expect((await readDocument(t.app, editor.id)).content).toBe("AA\nB\nC\nD");
  });

  it("keeps the ops of sync versions younger than the retention period: a patch based on one still rebases", async () => {
    const editor = await oldSyncVersions();
    t.clock.advance(RETENTION_MS);
    await editor.setLine(0, "A6"); // version 6, young
    await editor.setLine(1, "B7"); // version 7, young
    t.clock.advance(1000);
    await t.services.compactor.runOnce();

    const response = await patchContent(t.app, editor.id, { baseVersion: 6, checksum: checksumOf("A6\nB\nC\nD"), clientId: "client-b", seq: 1, ops: [replace(3, 1, "D8")] });

    expectAccepted(response, 8, [replace(1, 1, "B7")]);
    expect((await readDocument(t.app, editor.id)).content).toBe("A6\nB7\nC\nD8");
    // Version 5 became a milestone through the pause before version 6; version 4 is an old sync version.
    expect((await t.store.reads(editor.id).version(4))?.ops).toBeNull();
    expect((await t.store.reads(editor.id).version(6))?.ops).not.toBeNull();
  });

  it("leaves GET …/history unchanged", async () => {
    const editor = await oldSyncVersions();
    t.clock.advance(PAUSE_MS);
    await editor.setLine(0, "A6"); // promotes version 5
    t.clock.advance(1000);
    await editor.setLine(1, "B7", true);
    t.clock.advance(1000);
    await editor.setLine(2, "C8");
    const before = await readHistory(t.app, editor.id);

    await compactAfterRetention();

    expect(await readHistory(t.app, editor.id)).toEqual(before);
    expect(before.map((item) => [item.version, item.content])).toEqual([
      [1, "a\nb\nc\nd"],
      [5, "A\nB\nC\nD"],
      [7, "A6\nB7\nC\nD"],
      [8, "A6\nB7\nC8\nD"],
    ]);
  });

  it("makes the feed answer a compacted since with the full content and no fromVersion", async () => {
    const editor = await oldSyncVersions();
    await compactAfterRetention();

    const response = await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${editor.id}/changes?since=3&wait=0` });

    expectJson(response, 200, {
      currentVersion: 5,
      content: "A\nB\nC\nD",
      events: [
        { version: 4, changeType: "UPDATED", clientId: "client-a" },
        { version: 5, changeType: "UPDATED", clientId: "client-a" },
      ],
    });
  });

  it("keeps the feed's exact diff from the head, which is not compacted", async () => {
    const editor = await oldSyncVersions();
    await compactAfterRetention();
    await editor.setLine(0, "A6");

    const response = await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${editor.id}/changes?since=5&wait=0` });

    expectJson(response, 200, {
      fromVersion: 5,
      currentVersion: 6,
      ops: [replace(0, 1, "A6")],
      events: [{ version: 6, changeType: "UPDATED", clientId: "client-a" }],
    });
  });

  it("keeps milestones whole: their text stays, and a rollback to one still works", async () => {
    const editor = await ContentEditor.create(t.app, "a\nb");
    t.clock.advance(1000);
    await editor.setLine(0, "A", true);
    t.clock.advance(1000);
    await editor.setLine(1, "B");
    t.clock.advance(1000);
    await editor.setLine(1, "BB");
    await compactAfterRetention();

    expect((await t.store.reads(editor.id).version(2))?.text).toBe("A\nb");
    const rollback = await t.app.inject({ method: "POST", url: `${DOCUMENTS}/${editor.id}/restore`, payload: { version: 2 } });

    expect({ status: rollback.statusCode, content: rollback.json<{ content: string }>().content, version: rollback.json<{ version: number }>().version }).toEqual({
      status: 200,
      content: "A\nb",
      version: 5,
    });
  });

  it("keeps the deletion record: a deleted document is restored with its last state after compaction", async () => {
    const editor = await oldSyncVersions();
    t.clock.advance(1000);
    expect((await t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${editor.id}` })).statusCode).toBe(204);
    await compactAfterRetention();

    const restored = await t.app.inject({ method: "POST", url: `${DOCUMENTS}/${editor.id}/restore` });

    expect({ status: restored.statusCode, content: restored.json<{ content: string }>().content, version: restored.json<{ version: number }>().version }).toEqual({
      status: 200,
      content: "A\nB\nC\nD",
      version: 7,
    });
    expect((await readHistory(t.app, editor.id)).map((item) => [item.version, item.changeType])).toEqual([
      [1, "CREATED"],
      [6, "DELETED"],
      [7, "RESTORED"],
    ]);
  });

  it("never drops ops the head still needs: a fresh service rebuilds the right text when the last sync versions are old", async () => {
    const editor = await ContentEditor.create(t.app, Array.from({ length: 50 }, (_, k) => `line ${k}`).join("\n"));
    // Enough sync versions for the writer to have written a snapshot on its own somewhere in between.
    for (let k = 0; k < 45; k++) {
      t.clock.advance(1000);
      await editor.setLine(k, `edit ${k}`);
    }
    await compactAfterRetention();

    // A second app on the same store has an empty head cache: it rebuilds the text from the store.
    const fresh = await buildTestApp({ store: t.store, clock: t.clock });
    expect(await readDocument(fresh.app, editor.id)).toMatchObject({ version: 46, content: editor.text });
    expect((await t.store.reads(editor.id).version(45))?.ops).toBeNull();
    await fresh.app.close();
  });

  it("never drops ops the head still needs when the head is an old sync version with no snapshot yet", async () => {
    const editor = await oldSyncVersions();
    expect(await t.store.reads(editor.id).snapshot()).toBeUndefined();
    await compactAfterRetention();

    const fresh = await buildTestApp({ store: t.store, clock: t.clock });
    expect(await readDocument(fresh.app, editor.id)).toMatchObject({ version: 5, content: "A\nB\nC\nD" });
    await fresh.app.close();
  });
});
