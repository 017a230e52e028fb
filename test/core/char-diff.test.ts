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
