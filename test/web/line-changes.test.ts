import { EditorSelection, EditorState } from "@codemirror/state";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { joinLines } from "../../src/core/lines.js";
import { toLineOperation } from "../../src/core/normalized-op.js";
import { applyCharChanges, toCharChanges, toMinimalChanges } from "../../web/line-changes.js";
import { lineArb, opsArb, propertyParams } from "../core/property-support.js";

describe("line ops as character changes", () => {
  it("appends, prepends and deletes at the ends of the text", () => {
    expect(toCharChanges("a\nb", [{ op: "insert", index: 2, lines: ["c"] }])).toEqual([{ from: 3, to: 3, insert: "\nc" }]);
    expect(toCharChanges("a\nb", [{ op: "insert", index: 0, lines: ["c"] }])).toEqual([{ from: 0, to: 0, insert: "c\n" }]);
    expect(toCharChanges("a\nb", [{ op: "delete", index: 1, count: 1 }])).toEqual([{ from: 1, to: 3, insert: "" }]);
    expect(toCharChanges("a\nb", [{ op: "delete", index: 0, count: 2 }])).toEqual([{ from: 0, to: 3, insert: "" }]);
    expect(toCharChanges("", [{ op: "replace", index: 0, count: 1, lines: ["x", "y"] }])).toEqual([{ from: 0, to: 0, insert: "x\ny" }]);
  });

  it("merges touching ops into one change, so that none overlaps another", () => {
    const ops = [
      { op: "replace" as const, index: 1, count: 1, lines: ["B"] },
      { op: "delete" as const, index: 2, count: 1 },
    ];
    expect(toCharChanges("a\nb\nc", ops)).toEqual([{ from: 1, to: 5, insert: "\nB" }]);
  });

  it("gives the text applyOps gives, coarse and cut down to characters, for random texts and op lists", () => {
    const arb = fc.array(lineArb, { minLength: 1, maxLength: 12 }).chain((lines) => fc.tuple(fc.constant(lines), opsArb(lines.length)));
    fc.assert(
      fc.property(arb, ([lines, normalized]) => {
        const applied = applyOps(lines, normalized);
        if (!applied.ok) throw new Error(applied.message);
        for (const convert of [toCharChanges, toMinimalChanges]) {
          const changes = convert(joinLines(lines), normalized.map(toLineOperation));
          for (const [k, change] of changes.entries()) {
            expect(change.from).toBeLessThanOrEqual(change.to);
            if (k > 0) expect(change.from).toBeGreaterThanOrEqual(changes[k - 1]!.to);
          }
          expect(applyCharChanges(joinLines(lines), changes)).toEqual(joinLines(applied.lines));
        }
      }),
      propertyParams(2000),
    );
  });

  it("cuts a changed line down to its changed characters", () => {
    const ops = [{ op: "replace" as const, index: 1, count: 1, lines: ["Announce on Monday via blog"] }];
    expect(toMinimalChanges("Plan\nAnnounce on Mo\nEnd", ops)).toEqual([{ from: 19, to: 19, insert: "nday via blog" }]);
  });

  it("keeps the cursor of someone typing in the line where a co-author's word lands, before or after it", () => {
    // Ann's cursor in "Announce on Mo"; Bob's word arrives before it, after it, or between.
    const cursorAfter = (text: string, at: number, line: string) => {
      const state = EditorState.create({ doc: text, selection: EditorSelection.cursor(at) });
      const changes = toMinimalChanges(text, [{ op: "replace", index: 0, count: 1, lines: [line] }]);
      const next = state.update({ changes }).state;
      return [next.doc.toString(), next.selection.main.head];
    };
    expect(cursorAfter("Announce on Mo", 14, "Bob: Announce on Mo")).toEqual(["Bob: Announce on Mo", 19]);
    expect(cursorAfter("Announce on Mo", 14, "Announce on Mo (Bob)")).toEqual(["Announce on Mo (Bob)", 14]);
    expect(cursorAfter("Announce on Mo", 12, "Announce Tuesday on Mo")).toEqual(["Announce Tuesday on Mo", 20]);
  });
});
