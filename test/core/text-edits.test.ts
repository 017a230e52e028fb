import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffLines } from "../../src/core/diff-lines.js";
import { joinLines, splitLines } from "../../src/core/lines.js";
import { textEdits } from "../../src/core/text-edits.js";
// The editor page's own check: edits have the shape of its character changes.
import { applyCharChanges as apply } from "../../web/line-changes.js";
import { propertyParams } from "./property-support.js";

// textEdits: the character edits a live document hands the editor with every change (TextChange.edits).

const editsOf = (before: string, after: string) => textEdits(splitLines(before), diffLines(splitLines(before), splitLines(after)));

describe("textEdits", () => {
  it("edits only the characters that changed inside a line, each place on its own", () => {
    expect(editsOf("Announce on Tu Mo", "Announce on Tuesday via em Mo")).toEqual([{ from: 14, to: 14, insert: "esday via em" }]);
    expect(editsOf("a\nvia em Mo\nb", "a\nvia email Monday\nb")).toEqual([
      { from: 8, to: 8, insert: "ail" },
      { from: 11, to: 11, insert: "nday" },
    ]);
  });

  it("puts text in as whole words where it could slide, so that a cursor after its own blank stays after it", () => {
    // The character diff alone gives "B2" after the first blank and " " after the second: a cursor
    // typing after the first blank (at 5) would stay before "B2". As " B2" after "Plan" it moves on.
    expect(editsOf("Plan  C A release A0z", "Plan B2  C A release A0z B1z")).toEqual([
      { from: 4, to: 4, insert: " B2" },
      { from: 21, to: 21, insert: " B1z" },
    ]);
  });

  it("takes the line break after deleted lines, or the one before them at the end of the text", () => {
    expect(editsOf("a\nb\nc", "a\nc")).toEqual([{ from: 2, to: 4, insert: "" }]);
    expect(editsOf("a\nb\nc", "a\nb")).toEqual([{ from: 3, to: 5, insert: "" }]);
    expect(editsOf("a\nb", "a\nb\nc")).toEqual([{ from: 3, to: 3, insert: "\nc" }]);
    expect(editsOf("b", "a\nb")).toEqual([{ from: 0, to: 0, insert: "a\n" }]);
  });

  it("places text that could slide as early as it can, or as late with \"late\"", () => {
    // A blank put in next to a blank: before it (a merge, the service's text first) or after it.
    const ops = diffLines(["Announce "], ["Announce  "]);
    expect(textEdits(["Announce "], ops)).toEqual([{ from: 8, to: 8, insert: " " }]);
    expect(textEdits(["Announce "], ops, "late")).toEqual([{ from: 9, to: 9, insert: " " }]);
    expect(textEdits(["ab", "x"], diffLines(["ab", "x"], ["abb", "x"]), "late")).toEqual([{ from: 2, to: 2, insert: "b" }]);
  });

  it("places a merge's text where it reads as on the service's side, when it could be whole words at two places", () => {
    // Ann typed "y v" after "Monda"; Bob's " Tuesday v" reached the service first; the merge keeps
    // Ann's word first. " Tuesday v" after Ann's " v" and " v Tuesday" before it give the same text,
    // but only the first is what Bob typed: Ann's cursor after her " v" must stay before his words.
    const mine = ["  [ ] Announce Monday v"];
    const merged = ["  [ ] Announce Monday v Tuesday v"];
    const theirs = "  [ ] Announce Monda Tuesday v";
    const ops = diffLines(mine, merged);
    expect(textEdits(mine, ops, "early", theirs)).toEqual([{ from: 23, to: 23, insert: " Tuesday v" }]);
    // Without the service's side the insert is cut where the common ends leave it.
    expect(textEdits(mine, ops)).toEqual([{ from: 18, to: 18, insert: "day v Tues" }]);
    // Where the insert reads as in the service's text already, it stays: "the " typed before "there".
    expect(textEdits(["there is"], diffLines(["there is"], ["the there is"]), "early", "the there is")).toEqual([{ from: 0, to: 0, insert: "the " }]);
    expect(textEdits(["Buy eggs"], diffLines(["Buy eggs"], ["Buy milk eggs"]), "late", "Buy milk eggs")).toEqual([{ from: 4, to: 4, insert: "milk " }]);
  });

  it("never cuts a surrogate pair", () => {
    expect(editsOf("x😀y", "x😁y")).toEqual([{ from: 1, to: 3, insert: "😁" }]);
  });

  it("turns the text before into the text after, sorted and without overlaps", () => {
    const textArb = fc.array(fc.constantFrom("a", "b", " ", "\n", "😀", "é"), { maxLength: 30 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(textArb, textArb, textArb, (before, after, source) => {
        const edits = editsOf(before, after);
        const ops = diffLines(splitLines(before), splitLines(after));
        expect(apply(before, edits)).toBe(joinLines(splitLines(after)));
        expect(apply(before, textEdits(splitLines(before), ops, "late"))).toBe(joinLines(splitLines(after)));
        // Placed after a merge's source, or the text after itself as one, the edits still give it exactly.
        for (const from of [source, after]) {
          for (const slide of ["early", "late"] as const) {
            const placed = textEdits(splitLines(before), ops, slide, from);
            expect(apply(before, placed)).toBe(joinLines(splitLines(after)));
            placed.forEach((edit, k) => expect(k === 0 || placed[k - 1]!.to <= edit.from).toBe(true));
          }
        }
        edits.forEach((edit, k) => {
          expect(edit.from).toBeLessThanOrEqual(edit.to);
          if (k > 0) expect(edits[k - 1]!.to).toBeLessThanOrEqual(edit.from);
        });
      }),
      propertyParams(2_000),
    );
  });
});
