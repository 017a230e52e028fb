import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { diffLines } from "../../src/core/diff-lines.js";

describe("diffLines", () => {
  it("finds no op between equal texts", () => {
    expect(diffLines(["a", "b"], ["a", "b"])).toEqual([]);
  });

  it("finds one replace for one changed line", () => {
    expect(diffLines(["a", "b", "c"], ["a", "B", "c"])).toEqual([{ index: 1, count: 1, lines: ["B"] }]);
  });

  it("finds an append and a delete at the start", () => {
    expect(diffLines(["a", "b", "c"], ["b", "c", "d"])).toEqual([
      { index: 0, count: 1, lines: [] },
      { index: 3, count: 0, lines: ["d"] },
    ]);
  });

  it("finds two separate changes with a kept line between them", () => {
    expect(diffLines(["a", "b", "c", "d", "e"], ["a", "x", "c", "e"])).toEqual([
      { index: 1, count: 1, lines: ["x"] },
      { index: 3, count: 1, lines: [] },
    ]);
  });

  it("merges changes that touch into one op", () => {
    expect(diffLines(["a", "b", "c"], ["a", "x", "y"])).toEqual([{ index: 1, count: 2, lines: ["x", "y"] }]);
  });

  it("diffs from and to a text with no line", () => {
    expect([diffLines([], ["a"]), diffLines(["a"], [])]).toEqual([[{ index: 0, count: 0, lines: ["a"] }], [{ index: 0, count: 1, lines: [] }]]);
  });

  it("falls back to one replace of the changed middle past the edit-length bound", () => {
    const before = ["a", "b", "c", "d"];
    const after = ["x", "b", "y", "d"];
    expect(diffLines(before, after)).toEqual([
      { index: 0, count: 1, lines: ["x"] },
      { index: 2, count: 1, lines: ["y"] },
    ]);
    expect(diffLines(before, after, { maxEditLength: 2 })).toEqual([{ index: 0, count: 3, lines: ["x", "b", "y"] }]);
  });

  it("diffs a one-line change in a 20,000-line text quickly", () => {
    const before = Array.from({ length: 20_000 }, (_, k) => `line ${k % 50}`);
    const after = [...before];
    after[12_345] = "changed";
    const started = performance.now();
    const ops = diffLines(before, after);
    const elapsed = performance.now() - started;
    expect(ops).toEqual([{ index: 12_345, count: 1, lines: ["changed"] }]);
    // A generous bound, for a shared machine: trimmed, this takes about a millisecond.
    expect(elapsed).toBeLessThan(1000);
  });

  it("gives up on two long texts with nothing in common within its default bound and replaces the whole text", () => {
    const before = Array.from({ length: 20_000 }, (_, k) => `line ${k}`);
    const after = [...before].reverse();
    const started = performance.now();
    const ops = diffLines(before, after);
    const elapsed = performance.now() - started;
    expect(ops).toEqual([{ index: 0, count: 20_000, lines: after }]);
    expect(elapsed).toBeLessThan(3000);
  });

  it("produces ops that turn the first text into the second on repeated lines", () => {
    const before = ["", "a", "", "a", "b", ""];
    const after = ["a", "", "b", "", "a"];
    expect(applyOps(before, diffLines(before, after))).toEqual({ ok: true, lines: after });
  });
});
