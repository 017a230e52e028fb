import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { countCalls, type CallCounts } from "../support/count-calls.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { checksum } from "../support/http-expect.js";

// A crowd of feed requests that read at once with one `since` (authors polling again after one
// answer, or opening together) share one read of the head, one composed diff and one answer object;
// a request that arrives after that read has read the head gets a read of its own.

describe("feed requests that read at once with the same since", () => {
  let t: TestApp;
  let counts: CallCounts;
  beforeEach(async () => {
    const store = SqliteStore.open(":memory:");
    counts = countCalls(store, ["document"]);
    t = await buildTestApp({ store });
  });
  afterEach(async () => {
    await t.close();
  });

  async function patchLine(id: string, version: number, text: string, line: string): Promise<string> {
    const next = [line, ...text.split("\n").slice(1)].join("\n");
    const outcome = await t.services.patcher.patch(id, { baseVersion: version, checksum: checksum(text), clientId: "writer", seq: version, ops: [{ op: "replace", index: 0, count: 1, lines: [line] }] });
    expect(outcome.kind).toBe("accepted");
    return next;
  }

  it("share one read and one answer object when they arrive together; a later one reads again and sees the newer head", async () => {
    const created = await t.services.documents.create({ title: "T", content: "a\nb" });
    let text = await patchLine(created.id, 1, created.content, "x");
    text = await patchLine(created.id, 2, text, "y");
    counts.reset();

    const crowd = await Promise.all(Array.from({ length: 50 }, () => t.services.feed.changes(created.id, 1, 0)));
    expect(counts.calls.document).toBe(1);
    expect(new Set(crowd).size).toBe(1);
    expect(crowd[0]).toEqual({
      fromVersion: 1,
      currentVersion: 3,
      ops: [{ index: 0, count: 1, lines: ["y"] }],
      events: [
        { version: 2, changeType: "UPDATED", clientId: "writer" },
        { version: 3, changeType: "UPDATED", clientId: "writer" },
      ],
    });

    // The read has read its head: a request after a newer commit does not join it.
    await patchLine(created.id, 3, text, "z");
    const later = await t.services.feed.changes(created.id, 1, 0);
    expect(later?.currentVersion).toBe(4);
    expect(later?.ops).toEqual([{ index: 0, count: 1, lines: ["z"] }]);
  });
});
