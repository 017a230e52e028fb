import { describe, expect, it } from "vitest";
import type { VersionSummary } from "../../src/storage/store.js";
import { HeadCache, recentAfter, recentAt, summaryWeight, type CachedHead } from "../../src/service/caches/head-cache.js";

const ID = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a01";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");

function summary(version: number, line = "x"): VersionSummary {
  return { documentId: ID, version, changeType: "UPDATED", milestone: false, createdAt: T0 + version, title: "T", ops: [{ index: 0, count: 1, lines: [line] }], checksum: "sha256:0" };
}

/** A head at `version` with the versions from `from` on in memory. */
function entry(version: number, text: string, from = version + 1): CachedHead {
  const recent = Array.from({ length: version - from + 1 }, (_, k) => summary(from + k));
  const recentWeight = recent.reduce((sum, one) => sum + summaryWeight(one), 0);
  return { version, text, lines: text.split("\n"), basisVersion: 1, milestone: false, recent, recentWeight };
}

describe("HeadCache", () => {
  it("weighs a version summary by its strings and ops, plus a flat amount", () => {
    expect(summaryWeight(summary(1, "12345"))).toBe(560 + 1 + 70 + 5);
    expect(summaryWeight({ ...summary(1), clientId: "abc", displayName: "Ann", ops: null })).toBe(560 + 1 + 3 + 3);
  });

  it("counts the recent versions of an entry against the budget, not only its text", () => {
    // A one-line summary weighs 560 + 1 (title) + 70 (op) + 1 (line) = 632 characters.
    const cache = new HeadCache(2000);
    cache.set("a", entry(1, "a".repeat(500)));
    cache.set("b", entry(3, "b".repeat(100), 2));

    expect(cache.get("a", 1)?.text).toBe("a".repeat(500));
    expect(cache.get("b", 3)?.recent.map((v) => v.version)).toEqual([2, 3]);

    // 500 + 100 + 2 × 632 = 1,864 fit; a third summary for "b" (2,496) pushes out the least recently used, "a".
    cache.set("b", entry(4, "b".repeat(100), 2));
    expect(cache.get("a", 1)).toBeUndefined();
    expect(cache.get("b", 4)?.recent.map((v) => v.version)).toEqual([2, 3, 4]);
  });

  it("keeps no entry heavier than the whole budget, and drops an entry asked for at another version", () => {
    const cache = new HeadCache(1000);
    cache.set("a", entry(3, "short", 1));
    expect(cache.get("a", 3)).toBeUndefined();

    cache.set("b", entry(5, "text"));
    expect(cache.get("b", 6)).toBeUndefined();
    expect(cache.get("b", 5)).toBeUndefined();
  });
});

describe("HeadCache: an asker behind the writer", () => {
  it("keeps an entry newer than the version asked for, and hands it to those who can use a newer one", () => {
    const cache = new HeadCache(1_000_000);
    cache.set("a", entry(7, "seven", 3));
    // A feed read that read the head at 6 just before the writer committed 7.
    expect(cache.get("a", 6)).toBeUndefined();
    expect(cache.atLeast("a", 6)?.version).toBe(7);
    expect(cache.get("a", 7)?.recent.map((v) => v.version)).toEqual([3, 4, 5, 6, 7]);
    expect(cache.stats()).toMatchObject({ entries: 1, hits: 2, misses: 1 });
    // An entry older than the version asked for is stale: dropped.
    expect(cache.atLeast("a", 8)).toBeUndefined();
    expect(cache.get("a", 7)).toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 0, hits: 2, misses: 3 });
  });
});

describe("recent versions in memory", () => {
  const head = entry(10, "text", 6);
  const cutoff = T0;

  it("answers a range only when it reaches back far enough and is not older than the cutoff", () => {
    expect(recentAfter(head, 10, cutoff)).toEqual([]);
    expect(recentAfter(head, 5, cutoff)?.map((v) => v.version)).toEqual([6, 7, 8, 9, 10]);
    expect(recentAfter(head, 7, cutoff)?.map((v) => v.version)).toEqual([8, 9, 10]);
    expect(recentAfter(head, 4, cutoff)).toBeUndefined();
    expect(recentAfter(head, 5, T0 + 7)).toBeUndefined();
    expect(recentAfter(head, 6, T0 + 7)?.map((v) => v.version)).toEqual([7, 8, 9, 10]);
  });

  it("answers one version inside the range and younger than the cutoff", () => {
    expect(recentAt(head, 8, cutoff)?.version).toBe(8);
    expect(recentAt(head, 5, cutoff)).toBeUndefined();
    expect(recentAt(head, 11, cutoff)).toBeUndefined();
    expect(recentAt(head, 8, T0 + 9)).toBeUndefined();
  });
});
