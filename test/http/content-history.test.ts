import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { at, expectJson, createDocument } from "../support/http-expect.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import {
  DOCUMENTS,
  checksumOf,
  contentUrl,
  expectAccepted,
  expectProblem,
  patchContent,
  readDocument,
  readHistory,
  replace,
  type WireOp,
} from "../support/content-patch.js";

const PAUSE_MS = 300_000;
const RETENTION_MS = 86_400_000;

let t: TestApp;

beforeEach(async () => {
  t = await buildTestApp({
    config: (config) => {
      config.history.pauseSeconds = PAUSE_MS / 1000;
      config.history.retentionSeconds = RETENTION_MS / 1000;
    },
  });
});

afterEach(async () => {
  await t.close();
});

/** One client editing one document through PATCH …/content, always against the version it last wrote. */
class Editor {
  seq = 0;

  constructor(
    readonly id: string,
    public text: string,
    public version = 1,
    readonly clientId = "client-a",
  ) {}

  static async create(content: string): Promise<Editor> {
    return new Editor((await createDocument(t.app, { title: "Notes", content: content })).id, content);
  }

  /** Replaces line `index` with `line`; asserts the 200 and returns the new version. */
  async setLine(index: number, line: string, milestone = false): Promise<number> {
    const lines = this.text.split("\n");
    lines[index] = line;
    await this.send([replace(index, 1, line)], milestone);
    this.text = lines.join("\n");
    return this.version;
  }

  async send(ops: WireOp[], milestone = false): Promise<void> {
    this.seq += 1;
    const response = await patchContent(t.app, this.id, {
      baseVersion: this.version,
      checksum: checksumOf(this.text),
      clientId: this.clientId,
      seq: this.seq,
      milestone,
      ops,
    });
    expectAccepted(response, this.version + 1);
    this.version += 1;
  }
}

function entry(id: string, version: number, content: string, timestamp: string, changeType = "UPDATED", clientId: string | null = "client-a") {
  return { documentId: id, version, title: "Notes", content, changeType, timestamp, ...(clientId === null ? {} : { clientId }) };
}

describe("a write pause promotes the version before it to a milestone", () => {
  it("promotes the version before a pause of exactly pause-seconds, shown in GET …/history with its full text and clientId", async () => {
    const editor = await Editor.create("a\nb\nc");
    t.clock.advance(1000);
    await editor.setLine(0, "A");
    t.clock.advance(1000);
    await editor.setLine(1, "B");
    t.clock.advance(PAUSE_MS);
    await editor.setLine(2, "C");

    expect(await readHistory(t.app, editor.id)).toEqual([
      entry(editor.id, 1, "a\nb\nc", at(0), "CREATED", null),
      entry(editor.id, 3, "A\nB\nc", at(2000)),
      entry(editor.id, 4, "A\nB\nC", at(2000 + PAUSE_MS)),
    ]);
    expect((await t.store.reads(editor.id).version(3))?.milestone).toBe(true);
    expect((await t.store.reads(editor.id).version(2))?.milestone).toBe(false);
  });

  it("promotes nothing after a pause just below pause-seconds", async () => {
    const editor = await Editor.create("a\nb\nc");
    t.clock.advance(1000);
    await editor.setLine(0, "A");
    t.clock.advance(PAUSE_MS - 1);
    await editor.setLine(1, "B");

    expect(await readHistory(t.app, editor.id)).toEqual([
      entry(editor.id, 1, "a\nb\nc", at(0), "CREATED", null),
      entry(editor.id, 3, "A\nB\nc", at(PAUSE_MS + 999)),
    ]);
    expect((await t.store.reads(editor.id).version(2))?.milestone).toBe(false);
  });

  it("measures the pause from the last version, not from the first of a run of edits", async () => {
    const editor = await Editor.create("a");
    for (let k = 1; k <= 5; k++) {
      t.clock.advance(PAUSE_MS / 2);
      await editor.setLine(0, `a${k}`);
    }

    expect((await readHistory(t.app, editor.id)).map((item) => item.version)).toEqual([1, 6]);
  });

  it("promotes the version before a pause when the next change is a rename", async () => {
    const editor = await Editor.create("a");
    t.clock.advance(1000);
    await editor.setLine(0, "A");
    t.clock.advance(PAUSE_MS);

    const renamed = await t.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${editor.id}/title`, payload: { title: "Renamed", expectedVersion: 2 } });

    expect(renamed.statusCode).toBe(200);
    expect((await readHistory(t.app, editor.id)).map((item) => [item.version, item.changeType, item.content])).toEqual([
      [1, "CREATED", "a"],
      [2, "UPDATED", "A"],
      [3, "RENAMED", "A"],
    ]);
  });

  it("does not promote the version before the pause when it is a milestone already", async () => {
    const editor = await Editor.create("a");
    t.clock.advance(1000);
    await editor.setLine(0, "A", true);
    t.clock.advance(PAUSE_MS);
    await editor.setLine(0, "AA");

    expect((await readHistory(t.app, editor.id)).map((item) => item.version)).toEqual([1, 2, 3]);
  });

  it("counts the pause from the last recorded version: refused and repeated patches in between do not reset it", async () => {
    const editor = await Editor.create("a\nb");
    t.clock.advance(1000);
    await editor.setLine(0, "A");
    t.clock.advance(PAUSE_MS - 1000);
    // A repeat of seq 1 and a refused patch record nothing.
    expectAccepted(await patchContent(t.app, editor.id, { baseVersion: 1, checksum: checksumOf("a\nb"), clientId: "client-a", seq: 1, milestone: false, ops: [replace(0, 1, "A")] }), 2);
    expect((await patchContent(t.app, editor.id, { baseVersion: 2, checksum: checksumOf("wrong"), clientId: "client-b", seq: 1, ops: [replace(1, 1, "x")] })).statusCode).toBe(422);
    t.clock.advance(1000);
    await editor.setLine(1, "B");

    expect((await readHistory(t.app, editor.id)).map((item) => item.version)).toEqual([1, 2, 3]);
  });
});

describe("compaction after the retention period", () => {
  /** A document with a CREATED milestone and sync versions 2..5 a second apart, all older than the retention period. */
  async function oldSyncVersions(): Promise<Editor> {
    const editor = await Editor.create("a\nb\nc\nd");
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
    const editor = await Editor.create("a\nb");
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
    const editor = await Editor.create(Array.from({ length: 50 }, (_, k) => `line ${k}`).join("\n"));
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

describe("a sync version stores its ops, not the whole text", () => {
  it("stores a one-line patch of a 5,000-line document as one op without text, and leaves the snapshot alone", async () => {
    const lines = Array.from({ length: 5000 }, (_, k) => `line ${k} of a long document`);
    const editor = await Editor.create(lines.join("\n"));

    await editor.setLine(2500, "changed");

    const record = await t.store.reads(editor.id).version(2);
    expect({ text: record?.text, ops: record?.ops, milestone: record?.milestone }).toEqual({
      text: null,
      ops: [{ index: 2500, count: 1, lines: ["changed"] }],
      milestone: false,
    });
    expect(await t.store.reads(editor.id).snapshot()).toBeUndefined();
    expect((await readDocument(t.app, editor.id)).content).toBe(editor.text);
  });
});
