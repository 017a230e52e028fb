import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pureSha256Hex } from "../../src/core/checksum.js";
import { DocumentWriter } from "../../src/service/document-writer.js";
import { HEAD_CACHE_CHARACTERS, HeadCache, RECENT_VERSIONS, summaryWeight } from "../../src/service/caches/head-cache.js";
import type { WorkingDocument } from "../../src/service/working-document.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";

const ID = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a01";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");

let store: SqliteStore;
let writer: DocumentWriter;
let committed: [string, number][];

beforeEach(() => {
  store = SqliteStore.open(":memory:");
  committed = [];
  writer = new DocumentWriter({
    store,
    policy: { now: () => T0, sha256: pureSha256Hex, pauseMs: 300_000, cutoff: () => T0 - 86_400_000 },
    onCommitted: (id, version) => committed.push([id, version]),
    cache: new HeadCache(HEAD_CACHE_CHARACTERS),
  });
});

afterEach(async () => {
  await within(writer.idle(), 2000);
  await store.close();
});

/** A command that records `line` as the whole text. */
const put = (line: string) => async (doc: WorkingDocument) => {
  const record = await doc.commit({ changeType: doc.document ? "UPDATED" : "CREATED", milestone: !doc.document, title: "T", lines: [line], ops: [], deleted: false });
  return record.version;
};

/** Settles with "pending" when `promise` has not settled within `ms`. */
const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), ms))]);

describe("DocumentWriter", () => {
  it("runs a command submitted right after the previous one settled, whatever microtask turn it comes in", async () => {
    // No I/O in between: the drain that ran the previous command may still be finishing. Each count
    // of microtask turns meets it at another step.
    for (let turns = 0; turns < 8; turns++) {
      await writer.submit(ID, put(`before ${turns}`));
      for (let turn = 0; turn < turns; turn++) await Promise.resolve();
      expect(await within(writer.submit(ID, put(`after ${turns}`)), 2000)).toBe(2 * turns + 2);
    }
    expect(committed).toHaveLength(16);
    expect((await store.reads(ID).document())?.version).toBe(16);
  });

  it("runs the commands that queue up during a commit together in the next batch, in order", async () => {
    const versions = await Promise.all(["a", "b", "c", "d"].map((line) => writer.submit(ID, put(line))));

    expect(versions).toEqual([1, 2, 3, 4]);
    // The first command ran alone; the three that queued meanwhile shared the next commit.
    expect(committed).toEqual([[ID, 1], [ID, 4]]);
  });

  it("keeps the newest RECENT_VERSIONS versions in the cache with their weight counted exactly", async () => {
    const total = RECENT_VERSIONS + 300;
    const versions = await Promise.all(Array.from({ length: total }, (_, n) => writer.submit(ID, put(`line ${n}`))));

    expect(versions.at(-1)).toBe(total);
    const cached = writer.cache.get(ID, total);
    expect(cached?.recent.map((v) => v.version)).toEqual(Array.from({ length: RECENT_VERSIONS }, (_, k) => total - RECENT_VERSIONS + 1 + k));
    expect(cached?.recentWeight).toBe(cached?.recent.reduce((sum, v) => sum + summaryWeight(v), 0));
  });
});
