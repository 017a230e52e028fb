import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import type { NormalizedOp } from "../../src/core/normalized-op.js";
import { rebaseOps } from "../../src/core/rebase-ops.js";

const base = ["L0", "L1", "L2", "L3", "L4", "L5", "L6", "L7"];

function ins(index: number, ...lines: string[]): NormalizedOp {
  return { index, count: 0, lines };
}
function del(index: number, count: number): NormalizedOp {
  return { index, count, lines: [] };
}
function rep(index: number, count: number, ...lines: string[]): NormalizedOp {
  return { index, count, lines };
}

/** The text after the foreign ops and then the rebased submitted ones, or the overlaps. */
function merged(foreign: NormalizedOp[], submitted: NormalizedOp[]): string[] | "overlap" {
  const rebased = rebaseOps(foreign, submitted);
  if (!rebased.ok) return "overlap";
  const current = applyOps(base, foreign);
  if (!current.ok) throw new Error(current.message);
  const result = applyOps(current.lines, rebased.ops);
  if (!result.ok) throw new Error(result.message);
  return result.lines;
}

describe("rebaseOps", () => {
  it("returns the submitted ops unchanged when nothing happened since the base", () => {
    expect(rebaseOps([], [rep(2, 1, "x")])).toEqual({ ok: true, ops: [rep(2, 1, "x")] });
  });

  it("shifts a submitted op by the line-count change of the foreign ops before it", () => {
    expect(rebaseOps([ins(0, "a", "b"), del(2, 1)], [rep(5, 1, "x")])).toEqual({ ok: true, ops: [rep(6, 1, "x")] });
  });

  it("leaves a submitted op before every foreign op where it is", () => {
    expect(rebaseOps([del(5, 2)], [rep(1, 1, "x")])).toEqual({ ok: true, ops: [rep(1, 1, "x")] });
  });

  it("accepts a submitted replace that touches the end of a foreign replace", () => {
    expect(rebaseOps([rep(2, 1, "F1", "F2")], [rep(3, 1, "S")])).toEqual({ ok: true, ops: [rep(4, 1, "S")] });
    expect(merged([rep(2, 1, "F1", "F2")], [rep(3, 1, "S")])).toEqual(["L0", "L1", "F1", "F2", "S", "L4", "L5", "L6", "L7"]);
  });

  it("accepts a submitted replace that touches the start of a foreign replace", () => {
    expect(rebaseOps([rep(3, 1, "F")], [rep(2, 1, "S")])).toEqual({ ok: true, ops: [rep(2, 1, "S")] });
  });

  it("puts a submitted insert at the start of a foreign range before the foreign lines", () => {
    expect(rebaseOps([rep(2, 2, "F")], [ins(2, "S")])).toEqual({ ok: true, ops: [ins(2, "S")] });
    expect(merged([rep(2, 2, "F")], [ins(2, "S")])).toEqual(["L0", "L1", "S", "F", "L4", "L5", "L6", "L7"]);
  });

  it("puts a submitted insert at the end of a foreign range after the foreign lines", () => {
    expect(rebaseOps([rep(2, 2, "F")], [ins(4, "S")])).toEqual({ ok: true, ops: [ins(3, "S")] });
    expect(merged([rep(2, 2, "F")], [ins(4, "S")])).toEqual(["L0", "L1", "F", "S", "L4", "L5", "L6", "L7"]);
  });

  it("keeps submitted inserts at both ends of a foreign delete, in their order", () => {
    expect(rebaseOps([del(2, 2)], [ins(2, "x"), ins(4, "y")])).toEqual({ ok: true, ops: [ins(2, "x", "y")] });
    expect(merged([del(2, 2)], [ins(2, "x"), ins(4, "y")])).toEqual(["L0", "L1", "x", "y", "L4", "L5", "L6", "L7"]);
  });

  it("puts a foreign insert at the start of a submitted replace before it and shifts the replace", () => {
    expect(rebaseOps([ins(2, "F")], [rep(2, 2, "S")])).toEqual({ ok: true, ops: [rep(3, 2, "S")] });
    expect(merged([ins(2, "F")], [rep(2, 2, "S")])).toEqual(["L0", "L1", "F", "S", "L4", "L5", "L6", "L7"]);
  });

  it("puts a foreign insert at the end of a submitted replace after it", () => {
    expect(rebaseOps([ins(4, "F")], [rep(2, 2, "S")])).toEqual({ ok: true, ops: [rep(2, 2, "S")] });
    expect(merged([ins(4, "F")], [rep(2, 2, "S")])).toEqual(["L0", "L1", "S", "F", "L4", "L5", "L6", "L7"]);
  });

  it("puts the foreign lines first when both sides insert at one index", () => {
    expect(rebaseOps([ins(2, "F")], [ins(2, "S")])).toEqual({ ok: true, ops: [ins(3, "S")] });
    expect(merged([ins(2, "F")], [ins(2, "S")])).toEqual(["L0", "L1", "F", "S", "L2", "L3", "L4", "L5", "L6", "L7"]);
  });

  it("puts a foreign insert before a submitted insert at its index and the submitted replace after both", () => {
    expect(merged([ins(2, "F")], [ins(2, "S"), rep(2, 1, "T")])).toEqual(["L0", "L1", "F", "S", "T", "L3", "L4", "L5", "L6", "L7"]);
  });

  it("drops a submitted change that the foreign ops already made", () => {
    expect(rebaseOps([rep(2, 1, "X"), ins(6, "Y")], [rep(2, 1, "X"), rep(4, 1, "Z")])).toEqual({ ok: true, ops: [rep(4, 1, "Z")] });
  });

  it("drops an already made change also when each side split it into different ops", () => {
    const foreign = [ins(2, "X"), del(2, 2)];
    const submitted = [rep(2, 1, "X"), del(3, 1), ins(6, "Z")];
    expect(rebaseOps(foreign, submitted)).toEqual({ ok: true, ops: [ins(5, "Z")] });
    expect(merged(foreign, submitted)).toEqual(["L0", "L1", "X", "L4", "L5", "Z", "L6", "L7"]);
  });

  it("drops an identical delete", () => {
    expect(rebaseOps([del(2, 2)], [del(2, 1), del(3, 1)])).toEqual({ ok: true, ops: [] });
  });

  it("drops an identical insert", () => {
    expect(rebaseOps([ins(3, "X")], [ins(3, "X")])).toEqual({ ok: true, ops: [] });
  });

  it("does not drop a submitted hunk that only starts with the foreign change", () => {
    // The submitted hunk [2, 4) → X Y is not the foreign hunk [2, 3) → X, and its first op overlaps.
    expect(rebaseOps([rep(2, 1, "X")], [rep(2, 1, "X"), rep(3, 1, "Y")])).toEqual({
      ok: false,
      overlaps: [{ submitted: rep(2, 1, "X"), foreign: rep(2, 1, "X") }],
    });
  });

  it("does not merge a submitted hunk with a foreign hunk it touches into one comparison", () => {
    // Together the two sides make [2, 4) → X Y, and the submitted side alone makes [2, 4) → X Y too;
    // yet the foreign hunk is only [3, 4) → Y, so the submitted replace of [3, 4) truly overlaps it.
    expect(rebaseOps([rep(3, 1, "Y")], [rep(2, 2, "X", "Y")])).toEqual({
      ok: false,
      overlaps: [{ submitted: rep(2, 2, "X", "Y"), foreign: rep(3, 1, "Y") }],
    });
    expect(rebaseOps([rep(3, 1, "Y")], [rep(2, 1, "X")])).toEqual({ ok: true, ops: [rep(2, 1, "X")] });
  });

  it("reports a different change of the same range as an overlap", () => {
    expect(rebaseOps([rep(2, 1, "F")], [rep(2, 1, "S")])).toEqual({ ok: false, overlaps: [{ submitted: rep(2, 1, "S"), foreign: rep(2, 1, "F") }] });
  });

  it("reports an insert strictly inside the other side's range as an overlap, either way round", () => {
    expect([rebaseOps([del(2, 3)], [ins(3, "S")]), rebaseOps([ins(3, "F")], [del(2, 3)])]).toEqual([
      { ok: false, overlaps: [{ submitted: ins(3, "S"), foreign: del(2, 3) }] },
      { ok: false, overlaps: [{ submitted: del(2, 3), foreign: ins(3, "F") }] },
    ]);
  });

  it("reports every truly overlapping pair, in submitted then foreign order", () => {
    const foreign = [rep(1, 2, "A"), ins(5, "B"), del(7, 1)];
    const submitted = [rep(0, 2, "x"), rep(2, 1, "y"), rep(4, 2, "z"), ins(8, "w")];
    expect(rebaseOps(foreign, submitted)).toEqual({
      ok: false,
      overlaps: [
        { submitted: rep(0, 2, "x"), foreign: rep(1, 2, "A") },
        { submitted: rep(2, 1, "y"), foreign: rep(1, 2, "A") },
        { submitted: rep(4, 2, "z"), foreign: ins(5, "B") },
      ],
    });
  });

  it("reports one submitted op against every foreign op it overlaps", () => {
    const foreign = [del(1, 1), ins(3, "F"), rep(4, 1, "G")];
    expect(rebaseOps(foreign, [rep(0, 6, "S")])).toEqual({
      ok: false,
      overlaps: foreign.map((f) => ({ submitted: rep(0, 6, "S"), foreign: f })),
    });
  });

  it("ignores no-op ops on either side", () => {
    expect(rebaseOps([rep(2, 0)], [ins(2), rep(3, 1, "S")])).toEqual({ ok: true, ops: [rep(3, 1, "S")] });
  });

  it("merges submitted ops that come to touch after the shift, so the result stays a valid list", () => {
    // Inserts at 2 and 3 around a foreign delete of line 2 both land at index 2: one insert, not two.
    expect(rebaseOps([del(2, 1)], [ins(2, "x"), ins(3, "y")])).toEqual({ ok: true, ops: [ins(2, "x", "y")] });
  });
});
