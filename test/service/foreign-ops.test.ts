import { describe, expect, it } from "vitest";
import { composeChain } from "../../src/core/compose-ops.js";
import type { NormalizedOp } from "../../src/core/normalized-op.js";
import { ForeignOps } from "../../src/service/caches/foreign-ops.js";
import { RECENT_VERSIONS } from "../../src/service/caches/head-cache.js";
import type { VersionSummary } from "../../src/storage/store.js";

const ID = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a01";

/** Version `v` replaces line 2v: the composition of any range keeps one op per version, in order. */
function opsOf(version: number): NormalizedOp[] {
  return [{ index: 2 * version, count: 1, lines: [`v${version}`] }];
}

function summary(version: number, ops: NormalizedOp[] | null = opsOf(version)): VersionSummary {
  return { documentId: ID, version, changeType: "UPDATED", milestone: false, createdAt: version, title: "T", ops, checksum: "sha256:0" };
}

/** The versions up to `head` as a working document reads them, and the `after` of every read. */
function history(head: number, version: (v: number) => VersionSummary = summary) {
  const reads: number[] = [];
  return {
    reads,
    versionsAfter: (after: number) => {
      reads.push(after);
      return Promise.resolve(Array.from({ length: Math.max(0, head - after) }, (_, k) => version(after + 1 + k)));
    },
  };
}

/** The composition of the versions in `(base, head]`, composed from every one of them. */
function composed(base: number, head: number): NormalizedOp[] {
  return composeChain(Array.from({ length: head - base }, (_, k) => opsOf(base + 1 + k)));
}

describe("ForeignOps", () => {
  it("composes the versions after a new base, and extends the composition kept for a base by the versions since", async () => {
    const foreign = new ForeignOps(RECENT_VERSIONS);
    const first = history(7);
    expect(await foreign.since(4, 7, first)).toEqual([
      { index: 10, count: 1, lines: ["v5"] },
      { index: 12, count: 1, lines: ["v6"] },
      { index: 14, count: 1, lines: ["v7"] },
    ]);
    expect(first.reads).toEqual([4]);

    const second = history(9);
    expect(await foreign.since(4, 9, second)).toEqual(composed(4, 9));
    // Only the versions after the kept composition were read.
    expect(second.reads).toEqual([7]);
  });

  it("composes the versions up to the nearest later base with the composition kept for it", async () => {
    const foreign = new ForeignOps(RECENT_VERSIONS);
    await foreign.since(8, 12, history(12));
    // Versions 9 to 12 read differently now: an answer made of them would show it.
    const later = history(12, (v) => summary(v, v > 8 ? [] : opsOf(v)));
    expect(await foreign.since(5, 12, later)).toEqual(composed(5, 12));
    expect(later.reads).toEqual([5]);
  });

  it("serves bases at least 64 versions behind the head from a window of bases, built at the first of them", async () => {
    const foreign = new ForeignOps(RECENT_VERSIONS);
    expect(foreign.windowServes(10, 100)).toBe(false);
    expect(await foreign.since(10, 100, history(100))).toEqual(composed(10, 100));
    expect([foreign.windowServes(10, 100), foreign.windowServes(9, 100), foreign.windowServes(100, 100)]).toEqual([true, false, false]);

    const next = history(101);
    expect(await foreign.since(11, 101, next)).toEqual(composed(11, 101));
    expect(next.reads).toEqual([11]);
    expect(foreign.windowServes(11, 101)).toBe(true);
  });

  it("answers nothing for a base at or past the head, without reading", async () => {
    const foreign = new ForeignOps(RECENT_VERSIONS);
    const reads = history(5);
    expect(await foreign.since(5, 5, reads)).toEqual([]);
    expect(await foreign.since(6, 5, reads)).toEqual([]);
    expect(reads.reads).toEqual([]);
  });

  it("refuses with base-unavailable when a version after the base was compacted", async () => {
    const foreign = new ForeignOps(RECENT_VERSIONS);
    const compacted = history(6, (v) => summary(v, v === 5 ? null : opsOf(v)));
    await expect(foreign.since(3, 6, compacted)).rejects.toMatchObject({
      code: "base-unavailable",
      message: "the versions after base 3 were compacted; reload the document",
    });
  });

  it("keeps the 64 most recently used bases, and none whose versions are further behind than its reach", async () => {
    const foreign = new ForeignOps(RECENT_VERSIONS);
    for (let base = 1; base <= 65; base++) await foreign.since(base, base + 1, history(base + 1));
    const kept = history(70);
    await foreign.since(2, 70, kept);
    await foreign.since(1, 70, kept);
    expect(kept.reads).toEqual([3, 1]);

    const near = new ForeignOps(10);
    await near.since(5, 8, history(8));
    await near.since(30, 31, history(31));
    const again = history(40);
    await near.since(5, 40, again);
    expect(again.reads).toEqual([5]);
  });

  it("weighs its kept compositions and its window's op references", async () => {
    const foreign = new ForeignOps(RECENT_VERSIONS);
    const count = (ops: readonly NormalizedOp[]) => ops.length;
    expect(foreign.weight(count)).toBe(0);
    await foreign.since(4, 10, history(10));
    await foreign.since(2, 10, history(10));
    expect(foreign.weight(count)).toBe(6 + 8);
    await foreign.since(4, 12, history(12));
    expect(foreign.weight(count)).toBe(8 + 8);

    const windowed = new ForeignOps(RECENT_VERSIONS);
    await windowed.since(10, 100, history(100));
    // The composition kept for base 10 (90 ops), and the window's kept compositions up to the split
    // at 100 from bases 84, 68, 52, 36, 20 and 10: 330 op references of 8 characters each.
    expect(windowed.weight(count)).toBe(90 + 330 * 8);
  });
});
