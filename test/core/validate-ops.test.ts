import { describe, expect, it } from "vitest";
import { validateOps } from "../../src/core/validate-ops.js";

describe("validateOps", () => {
  it("accepts an empty list", () => {
    expect(validateOps([])).toEqual({ ok: true, ops: [] });
  });

  it("normalizes a valid list of every kind", () => {
    expect(
      validateOps([
        { op: "insert", index: 0, lines: ["a"] },
        { op: "replace", index: 0, count: 1, lines: ["b"] },
        { op: "delete", index: 1, count: 2 },
        { op: "insert", index: 5, count: 9, lines: [] },
      ]),
    ).toEqual({
      ok: true,
      ops: [
        { index: 0, count: 0, lines: ["a"] },
        { index: 0, count: 1, lines: ["b"] },
        { index: 1, count: 2, lines: [] },
        { index: 5, count: 0, lines: [] },
      ],
    });
  });

  it("rejects an insert without lines", () => {
    expect(validateOps([{ op: "insert", index: 0 }])).toEqual({ ok: false, message: "ops[0]: an insert needs lines" });
  });

  it("rejects a replace without count and one without lines", () => {
    expect([validateOps([{ op: "replace", index: 0, lines: ["a"] }]), validateOps([{ op: "replace", index: 0, count: 1 }])]).toEqual([
      { ok: false, message: "ops[0]: a replace needs count" },
      { ok: false, message: "ops[0]: a replace needs lines" },
    ]);
  });

  it("rejects a delete without count", () => {
    expect(validateOps([{ op: "delete", index: 0, lines: [] }])).toEqual({ ok: false, message: "ops[0]: a delete needs count" });
  });

  it("rejects a line containing LF", () => {
    expect(
      validateOps([
        { op: "insert", index: 0, lines: ["a"] },
        { op: "delete", index: 0, count: 1 },
        { op: "replace", index: 1, count: 1, lines: ["ok", "x\ny"] },
      ]),
    ).toEqual({ ok: false, message: "ops[2]: a line must not contain \\n or \\r, and lines[1] does" });
  });

  it("rejects a line containing CR", () => {
    expect(validateOps([{ op: "insert", index: 0, lines: ["x\r"] }])).toEqual({
      ok: false,
      message: "ops[0]: a line must not contain \\n or \\r, and lines[0] does",
    });
  });

  it("ignores the lines of a delete, line breaks included", () => {
    expect(validateOps([{ op: "delete", index: 0, count: 1, lines: ["x\ny"] }])).toEqual({ ok: true, ops: [{ index: 0, count: 1, lines: [] }] });
  });

  it("rejects a negative or fractional index or count", () => {
    expect([validateOps([{ op: "insert", index: -1, lines: [] }]), validateOps([{ op: "delete", index: 0, count: 1.5 }])]).toEqual([
      { ok: false, message: "ops[0]: index must be an integer of at least 0" },
      { ok: false, message: "ops[0]: count must be an integer of at least 0" },
    ]);
  });

  it("rejects ops that are not sorted by index", () => {
    expect(
      validateOps([
        { op: "delete", index: 4, count: 1 },
        { op: "delete", index: 2, count: 1 },
      ]),
    ).toEqual({ ok: false, message: "ops[1]: index 2 is less than index 4 of ops[0]; ops must be sorted by index" });
  });

  it("rejects an op that starts inside the range of the op before it", () => {
    expect(
      validateOps([
        { op: "replace", index: 1, count: 3, lines: [] },
        { op: "delete", index: 3, count: 1 },
      ]),
    ).toEqual({ ok: false, message: "ops[1]: starts at line 3, inside the range of ops[0], which ends at line 4; ops must not overlap" });
  });

  it("accepts an op that starts where the op before it ends", () => {
    expect(
      validateOps([
        { op: "delete", index: 1, count: 2 },
        { op: "insert", index: 3, lines: ["x"] },
        { op: "replace", index: 3, count: 1, lines: ["y"] },
      ]).ok,
    ).toEqual(true);
  });

  it("rejects a second insert at one index", () => {
    expect(
      validateOps([
        { op: "insert", index: 2, lines: ["a"] },
        { op: "insert", index: 2, lines: ["b"] },
      ]),
    ).toEqual({ ok: false, message: "ops[1]: a second insert at index 2; at most one insert is allowed at an index" });
  });

  it("rejects a second insert at one index also with an empty replace between them", () => {
    expect(
      validateOps([
        { op: "insert", index: 2, lines: ["a"] },
        { op: "replace", index: 2, count: 0, lines: ["b"] },
        { op: "insert", index: 2, lines: ["c"] },
      ]),
    ).toEqual({ ok: false, message: "ops[2]: a second insert at index 2; at most one insert is allowed at an index" });
  });

  it("rejects an insert after a replace or delete starting at its index", () => {
    expect([
      validateOps([
        { op: "replace", index: 2, count: 0, lines: ["a"] },
        { op: "insert", index: 2, lines: ["b"] },
      ]),
      validateOps([
        { op: "delete", index: 2, count: 0 },
        { op: "insert", index: 2, lines: ["b"] },
      ]),
    ]).toEqual([
      { ok: false, message: "ops[1]: an insert at index 2 must come before the replace starting there (ops[0]), not after it" },
      { ok: false, message: "ops[1]: an insert at index 2 must come before the delete starting there (ops[0]), not after it" },
    ]);
  });

  it("accepts an insert at the index where a replace before it ends", () => {
    expect(
      validateOps([
        { op: "replace", index: 0, count: 2, lines: ["a"] },
        { op: "insert", index: 2, lines: ["b"] },
      ]).ok,
    ).toEqual(true);
  });
});
