import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { composeChain, composeOps } from "../../src/core/compose-ops.js";
import type { NormalizedOp } from "../../src/core/normalized-op.js";

describe("composeOps", () => {
  it("composes two empty lists into an empty list", () => {
    expect(composeOps([], [])).toEqual([]);
  });

  it("leaves no trace of a line inserted and then deleted", () => {
    expect(composeOps([{ index: 1, count: 0, lines: ["x"] }], [{ index: 1, count: 1, lines: [] }])).toEqual([]);
  });

  it("keeps only the last content of a line replaced twice", () => {
    expect(composeOps([{ index: 2, count: 1, lines: ["x"] }], [{ index: 2, count: 1, lines: ["y"] }])).toEqual([
      { index: 2, count: 1, lines: ["y"] },
    ]);
  });

  it("maps a later op back over the lines an earlier one inserted", () => {
    // T0 = a b c; T1 = x y a b c; T2 = x y a B c.
    expect(composeOps([{ index: 0, count: 0, lines: ["x", "y"] }], [{ index: 3, count: 1, lines: ["B"] }])).toEqual([
      { index: 0, count: 0, lines: ["x", "y"] },
      { index: 1, count: 1, lines: ["B"] },
    ]);
  });

  it("merges changes whose ranges touch into one op", () => {
    expect(composeOps([{ index: 1, count: 1, lines: ["X"] }], [{ index: 2, count: 1, lines: ["Y"] }])).toEqual([
      { index: 1, count: 2, lines: ["X", "Y"] },
    ]);
  });

  it("merges an insert with the delete that starts at its index", () => {
    expect(composeOps([{ index: 1, count: 0, lines: ["X"] }], [{ index: 2, count: 2, lines: [] }])).toEqual([
      { index: 1, count: 2, lines: ["X"] },
    ]);
  });

  it("deletes part of an inserted block and a base line with one op of the second list", () => {
    // T0 = a b c; T1 = a x y z b c; T2 = a x c.
    expect(composeOps([{ index: 1, count: 0, lines: ["x", "y", "z"] }], [{ index: 2, count: 3, lines: [] }])).toEqual([
      { index: 1, count: 1, lines: ["x"] },
    ]);
  });

  it("merges the touching ops of its inputs even where the other list changes nothing", () => {
    expect(
      composeOps(
        [
          { index: 0, count: 0, lines: ["p"] },
          { index: 0, count: 1, lines: ["q"] },
        ],
        [],
      ),
    ).toEqual([{ index: 0, count: 1, lines: ["p", "q"] }]);
  });
});

describe("composeOps: the lines of the ops it is made of", () => {
  it("shares the lines array of an op that passes through whole, also when its index moves", () => {
    const kept = { index: 4, count: 1, lines: ["four"] };
    const before = { index: 0, count: 0, lines: ["top"] };
    const composed = composeOps([kept], [before]);
    expect(composed).toEqual([before, { index: 4, count: 1, lines: ["four"] }]);
    expect(composed[0]!.lines).toBe(before.lines);
    expect(composed[1]!.lines).toBe(kept.lines);
  });

  it("copies lines that join others in one op, and leaves the arrays of its inputs as they were", () => {
    const first = [{ index: 0, count: 0, lines: ["a"] }];
    const second = [{ index: 1, count: 0, lines: ["b"] }];
    const composed = composeOps(first, second);
    expect(composed).toEqual([{ index: 0, count: 0, lines: ["a", "b"] }]);
    expect(first[0]!.lines).toEqual(["a"]);
    expect(second[0]!.lines).toEqual(["b"]);
    expect(composed[0]!.lines).not.toBe(first[0]!.lines);
  });
});

describe("composeChain", () => {
  it("gives an empty list for an empty chain", () => {
    expect(composeChain([])).toEqual([]);
  });

  it("gives the canonical form of a chain of one list", () => {
    expect(
      composeChain([
        [
          { index: 1, count: 1, lines: [] },
          { index: 2, count: 0, lines: [] },
        ],
      ]),
    ).toEqual([{ index: 1, count: 1, lines: [] }]);
  });

  it("composes three lists in order", () => {
    // a b c → a b c d → a B c d → B c d
    expect(
      composeChain([[{ index: 3, count: 0, lines: ["d"] }], [{ index: 1, count: 1, lines: ["B"] }], [{ index: 0, count: 1, lines: [] }]]),
    ).toEqual([
      { index: 0, count: 2, lines: ["B"] },
      { index: 3, count: 0, lines: ["d"] },
    ]);
  });

  it("composes 20,000 one-line versions into the one op they amount to", () => {
    // Each version appends one line to a text that starts with one line: the shape of a typing session.
    const versions: NormalizedOp[][] = [];
    for (let k = 0; k < 20_000; k++) versions.push([{ index: 1 + k, count: 0, lines: [`line ${k}`] }]);
    const composed = composeChain(versions);
    expect(composed.length).toEqual(1);
    expect(applyOps(["first"], composed)).toEqual({ ok: true, lines: ["first", ...versions.map((ops) => ops[0]!.lines[0]!)] });
  });
});
