import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charChanges, charPieces } from "../../src/core/char-diff.js";
import { propertyParams } from "../core/property-support.js";

/** Applies sorted, apart changes to the string they are against. */
function applyCharChanges(text: string, changes: ReadonlyArray<{ from: number; to: number; insert: string }>): string {
  let out = "";
  let at = 0;
  for (const change of changes) {
    out += text.slice(at, change.from) + change.insert;
    at = change.to;
  }
  return out + text.slice(at);
}

/** Short strings over a few characters, a line break and a surrogate pair, so that diffs have choices. */
const textArb = fc.array(fc.constantFrom("a", "b", " ", "\n", "😀"), { maxLength: 14 }).map((parts) => parts.join(""));

describe("character diffs", () => {
  it("names the inserted word alone, not the line around it", () => {
    expect(charPieces("Announce on Mo", "Announce on Monday via blog")).toEqual([
      { kind: "same", text: "Announce on Mo" },
      { kind: "added", text: "nday via blog" },
    ]);
    expect(charChanges("  [ ] Test upgrade", "  [x] Test the upgrade", 10)).toEqual([
      { from: 13, to: 14, insert: "x" },
      { from: 20, to: 20, insert: " the" },
    ]);
  });

  it("reads a replaced line as replaced, not as a letter both happen to share", () => {
    // Ann replaced `second line x1 y2 z3` by `re` (typed): no `e` of `second` survives, so that
    // Bob's text put in inside the line lands at one end of Ann's, never between her letters.
    expect(charPieces("second line x1 y2 z3", "re")).toEqual([
      { kind: "removed", text: "second line x1 y2 z3" },
      { kind: "added", text: "re" },
    ]);
    expect(charPieces("the quick brown fox jumps", "the c jumps")).toEqual([
      { kind: "same", text: "the " },
      { kind: "removed", text: "quick brown fox" },
      { kind: "added", text: "c" },
      { kind: "same", text: " jumps" },
    ]);
    // A run kept between two insertions is text both kept: never read as taken out and put in again.
    expect(charPieces("ab", "aXbY")).toEqual([
      { kind: "same", text: "a" },
      { kind: "added", text: "X" },
      { kind: "same", text: "b" },
      { kind: "added", text: "Y" },
    ]);
  });

  it("keeps one's own letters where the new text still has them, and what one's unsent changes touch", () => {
    const hints = (own: number[], touched: number[] = []) => ({
      own: (at: number) => own.includes(at),
      touched: (from: number, to: number) => touched.some((at) => at >= from && at < to),
    });
    // Bob typed the `B` (offset 6): kept, so the `OB` he types after it follows it.
    expect(charPieces("secondB line x1 y2 z3", "replaced by B", hints([6])).filter((piece) => piece.kind === "same").map((piece) => piece.text)).toEqual(["e", "c", "d", "B"]);
    expect(charPieces("secondB line x1 y2 z3", "replaced by B").filter((piece) => piece.kind === "same").map((piece) => piece.text)).toEqual([" ", "y"]);
    // An `e` this client's unsent changes delete is not read as put in again by the other (it would come back).
    expect(charPieces("second line x1 y2 z3", "re", hints([], [1, 10])).filter((piece) => piece.kind === "same").map((piece) => piece.text)).toEqual(["e"]);
  });

  it("keeps a surrogate pair whole at the common ends", () => {
    expect(charPieces("x😀", "x😃")).toEqual([
      { kind: "same", text: "x" },
      { kind: "removed", text: "😀" },
      { kind: "added", text: "😃" },
    ]);
  });

  it("replaces a middle past the size bound whole, without a search", () => {
    const before = `<${"a".repeat(15_000)}>`;
    const after = `<${"b".repeat(15_000)}>`;
    expect(charChanges(before, after)).toEqual([{ from: 1, to: 15_001, insert: "b".repeat(15_000) }]);
  });

  it("gives changes that are sorted, apart, and turn the one string into the other; pieces that spell both", () => {
    fc.assert(
      fc.property(textArb, textArb, fc.nat({ max: 5 }), (before, after, offset) => {
        const pieces = charPieces(before, after);
        expect(pieces.filter((piece) => piece.kind !== "added").map((piece) => piece.text).join("")).toEqual(before);
        expect(pieces.filter((piece) => piece.kind !== "removed").map((piece) => piece.text).join("")).toEqual(after);
        const changes = charChanges(before, after, offset);
        for (const [k, change] of changes.entries()) {
          expect(change.from <= change.to && (change.from < change.to || change.insert !== "")).toEqual(true);
          if (k > 0) expect(change.from).toBeGreaterThan(changes[k - 1]!.to);
        }
        const shifted = changes.map((change) => ({ ...change, from: change.from - offset, to: change.to - offset }));
        expect(applyCharChanges(before, shifted)).toEqual(after);
      }),
      propertyParams(3000),
    );
  });
});
