import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";

const text = ["a", "b", "c"];

describe("applyOps", () => {
  it("applies an insert, a replace and a delete in one pass", () => {
    expect(
      applyOps(text, [
        { index: 0, count: 0, lines: ["x"] },
        { index: 1, count: 1, lines: ["B1", "B2"] },
        { index: 2, count: 1, lines: [] },
      ]),
    ).toEqual({ ok: true, lines: ["x", "a", "B1", "B2"] });
  });

  it("appends with an insert at the number of lines", () => {
    expect(applyOps(text, [{ index: 3, count: 0, lines: ["d"] }])).toEqual({ ok: true, lines: ["a", "b", "c", "d"] });
  });

  it("puts the lines of empty-range ops at one index in list order", () => {
    expect(
      applyOps(text, [
        { index: 1, count: 0, lines: ["x"] },
        { index: 1, count: 0, lines: ["y"] },
        { index: 1, count: 1, lines: ["z"] },
      ]),
    ).toEqual({ ok: true, lines: ["a", "x", "y", "z", "c"] });
  });

  it("leaves no line when every line is deleted", () => {
    expect(applyOps(text, [{ index: 0, count: 3, lines: [] }])).toEqual({ ok: true, lines: [] });
  });

  it("returns an empty list of ops the lines unchanged", () => {
    expect(applyOps(text, [])).toEqual({ ok: true, lines: ["a", "b", "c"] });
  });

  it("rejects an index past the end of the text", () => {
    expect(applyOps(text, [{ index: 4, count: 0, lines: ["d"] }])).toEqual({
      ok: false,
      message: "ops[0]: index 4 is outside the text, which has 3 lines",
    });
  });

  it("rejects a range that reaches past the end of the text", () => {
    expect(
      applyOps(text, [
        { index: 0, count: 0, lines: ["x"] },
        { index: 2, count: 2, lines: [] },
      ]),
    ).toEqual({ ok: false, message: "ops[1]: the range [2, 4) reaches past the end of the text, which has 3 lines" });
  });

  it("rejects ops that are not sorted", () => {
    expect(
      applyOps(text, [
        { index: 2, count: 1, lines: [] },
        { index: 0, count: 1, lines: [] },
      ]),
    ).toEqual({ ok: false, message: "ops[1]: starts at line 0, before the previous op ends at line 3" });
  });
});
