import { describe, expect, it } from "vitest";
import { at } from "../support/http-expect.js";
import { appPerTest } from "../support/app-per-test.js";
import { ContentEditor, DOCUMENTS, PAUSE_MS, checksumOf, expectAccepted, historyTimes, patchContent, readDocument, readHistory, replace } from "../support/content-patch.js";

/*
 * What the history of PATCH …/content records: the version before a write pause promoted to a
 * milestone, and sync versions stored as ops. What compaction clears later: content-history-compaction.test.ts.
 */

const t = appPerTest({ config: historyTimes });

function entry(id: string, version: number, content: string, timestamp: string, changeType = "UPDATED", clientId: string | null = "client-a") {
  return { documentId: id, version, title: "Notes", content, changeType, timestamp, ...(clientId === null ? {} : { clientId }) };
}

describe("a write pause promotes the version before it to a milestone", () => {
  it("promotes the version before a pause of exactly pause-seconds, shown in GET …/history with its full text and clientId", async () => {
    const editor = await ContentEditor.create(t.app, "a\nb\nc");
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
    const editor = await ContentEditor.create(t.app, "a\nb\nc");
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
    const editor = await ContentEditor.create(t.app, "a");
    for (let k = 1; k <= 5; k++) {
      t.clock.advance(PAUSE_MS / 2);
      await editor.setLine(0, `a${k}`);
    }

    expect((await readHistory(t.app, editor.id)).map((item) => item.version)).toEqual([1, 6]);
  });

  it("promotes the version before a pause when the next change is a rename", async () => {
    const editor = await ContentEditor.create(t.app, "a");
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
    const editor = await ContentEditor.create(t.app, "a");
    t.clock.advance(1000);
    await editor.setLine(0, "A", true);
    t.clock.advance(PAUSE_MS);
    await editor.setLine(0, "AA");

    expect((await readHistory(t.app, editor.id)).map((item) => item.version)).toEqual([1, 2, 3]);
  });

  it("counts the pause from the last recorded version: refused and repeated patches in between do not reset it", async () => {
    const editor = await ContentEditor.create(t.app, "a\nb");
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

describe("a sync version stores its ops, not the whole text", () => {
  it("stores a one-line patch of a 5,000-line document as one op without text, and leaves the snapshot alone", async () => {
    const lines = Array.from({ length: 5000 }, (_, k) => `line ${k} of a long document`);
    const editor = await ContentEditor.create(t.app, lines.join("\n"));

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
