import { describe, expect, it } from "vitest";
import { normalizeOp, toLineOperation } from "../../src/core/normalized-op.js";

describe("normalizeOp", () => {
  it("gives an insert count 0 and ignores the count it carries", () => {
    expect(normalizeOp({ op: "insert", index: 2, count: 5, lines: ["x"] })).toEqual({ ok: true, op: { index: 2, count: 0, lines: ["x"] } });
  });

  it("gives a delete no lines and ignores the lines it carries", () => {
    expect(normalizeOp({ op: "delete", index: 1, count: 2, lines: ["x"] })).toEqual({ ok: true, op: { index: 1, count: 2, lines: [] } });
  });

  it("keeps count and lines of a replace", () => {
    expect(normalizeOp({ op: "replace", index: 0, count: 1, lines: ["y", "z"] })).toEqual({
      ok: true,
      op: { index: 0, count: 1, lines: ["y", "z"] },
    });
  });

  it("names the missing field of each kind", () => {
    expect([
      normalizeOp({ op: "insert", index: 0 }),
      normalizeOp({ op: "replace", index: 0, lines: [] }),
      normalizeOp({ op: "replace", index: 0, count: 1 }),
      normalizeOp({ op: "delete", index: 0 }),
    ]).toEqual([
      { ok: false, message: "an insert needs lines" },
      { ok: false, message: "a replace needs count" },
      { ok: false, message: "a replace needs lines" },
      { ok: false, message: "a delete needs count" },
    ]);
  });
});

describe("toLineOperation", () => {
  it("writes an op that takes no line out as an insert without count", () => {
    expect(toLineOperation({ index: 3, count: 0, lines: ["a"] })).toEqual({ op: "insert", index: 3, lines: ["a"] });
  });

  it("writes an op that puts no line in as a delete without lines", () => {
    expect(toLineOperation({ index: 3, count: 2, lines: [] })).toEqual({ op: "delete", index: 3, count: 2 });
  });

  it("writes every other op as a replace with count and lines", () => {
    expect([toLineOperation({ index: 1, count: 1, lines: ["b"] }), toLineOperation({ index: 1, count: 0, lines: [] })]).toEqual([
      { op: "replace", index: 1, count: 1, lines: ["b"] },
      { op: "replace", index: 1, count: 0, lines: [] },
    ]);
  });

  it("leaves out the keys a kind does not use rather than setting them to undefined", () => {
    expect(Object.keys(toLineOperation({ index: 0, count: 0, lines: ["a"] }))).toEqual(["op", "index", "lines"]);
    expect(Object.keys(toLineOperation({ index: 0, count: 1, lines: [] }))).toEqual(["op", "index", "count"]);
  });
});
