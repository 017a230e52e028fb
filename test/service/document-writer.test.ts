import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pureSha256Hex } from "../../src/core/checksum.js";
import { DocumentWriter } from "../../src/service/document-writer.js";
import { HEAD_CACHE_CHARACTERS, HeadCache, RECENT_VERSIONS, summaryWeight } from "../../src/service/caches/head-cache.js";
import type { WorkingDocument } from "../../src/service/working-document.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { Store } from "../../src/storage/store.js";

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

describe("DocumentWriter's head row", () => {
  /** Counts the head-row reads made inside `target`'s writes. */
  function countRowReads(target: Store): { rows: number } {
    const counted = { rows: 0 };
    const write = target.write.bind(target);
    target.write = (id, work, ahead) =>
      write(id, (tx) => work({ ...tx, document: () => ((counted.rows += 1), tx.document()) }), ahead);
    return counted;
  }

  const writerOn = (target: Store) =>
    new DocumentWriter({
      store: target,
      policy: { now: () => T0, sha256: pureSha256Hex, pauseMs: 300_000, cutoff: () => T0 - 86_400_000 },
      onCommitted: () => undefined,
      cache: new HeadCache(HEAD_CACHE_CHARACTERS),
    });

  it("is taken from the head cache on a store it alone writes: only the first batch reads it", async () => {
    const counted = countRowReads(store);
    expect(store.soleWriter).toBe(true);

    for (const line of ["a", "b", "c"]) await writer.submit(ID, put(line));

    expect(counted.rows).toBe(1);
    expect(await store.reads(ID).document()).toMatchObject({ version: 3, deleted: false });
    expect((await writer.submit(ID, async (doc) => doc.text()))).toBe("c");
  });

  it("is read in every batch on a store that other instances write", async () => {
    const shared: Store = Object.create(store, { soleWriter: { value: false } }) as Store;
    const counted = countRowReads(shared);
    const other = writerOn(shared);

    for (const line of ["a", "b", "c"]) await other.submit(ID, put(line));

    expect(counted.rows).toBe(3);
    expect(await other.submit(ID, async (doc) => doc.document?.version)).toBe(3);
  });

  it("fails the batch, and writes nothing, when a second writer moved the head behind its cache's back; the next batch reads the row", async () => {
    // Two writers on one SQLite store break the store's promise; the check of the stored head at the
    // flush (sqlite-transaction.ts) keeps the history whole, and the failed batch drops the entry.
    const second = writerOn(store);
    await writer.submit(ID, put("a"));
    await second.submit(ID, put("b"));

    await expect(writer.submit(ID, put("c"))).rejects.toThrow(`appendVersion(2) on document ${ID}: the next version is 3`);
    expect(await store.reads(ID).document()).toMatchObject({ version: 2 });

    expect(await writer.submit(ID, put("d"))).toBe(3);
    expect(await writer.submit(ID, async (doc) => doc.text())).toBe("d");
    await second.idle();
  });
});
