import { describe, expect, it } from "vitest";
import { mergeLines, mergeText } from "../../src/core/merge-text.js";

// The three-way merge on the cases docs/line-model.md#merging-inside-lines names: (base, theirs =
// the service's text, mine = the local text) → the merged text.

describe("mergeText", () => {
  it("keeps both people's words typed at one point of a line, the service's first", () => {
    expect(mergeText("Announce on", "Announce on Tuesday via email", "Announce on Monday via blog")).toBe("Announce on Tuesday via email Monday via blog");
  });

  it("never pairs the start of a word being typed with another word's start at the cost of a longer word", () => {
    // Bob's " B" (the start of "B8z", in flight) is in the base; his local text has finished "B8z"
    // and started another word with " B" before "B7z". Ann typed " A7z" after his first " B".
    expect(mergeText("x B5z B7z B B3z", "x B5z B7z B A7z B3z", "x B5z B B7z B8z B3z")).toBe("x B5z B B7z B8z A7z B3z");
    // Ann's new " A" before "release" is not her " A" at the end of the line, which she finished as "A1z".
    expect(mergeText("Plan A0z release A", "Plan A0z A release A1z", "Plan A0z release B2 A")).toBe("Plan A0z A release B2 A1z");
    // Of two ways that keep as much, the earlier base word stays: Cy's " C" is not taken out.
    expect(mergeText("Announce soon C B", "Announce soon B C B0z", "Announce C2z soon C1z C0z B")).toBe("Announce C2z soon B C1z C0z B0z");
    // A word typed on (" C" into " C6z") is the same word: what was put in after it stays after it.
    expect(mergeText("Plan C0z C D B2z", "Plan C0z C6z D C B2z", "Plan C0z C D1z B2z")).toBe("Plan C0z C6z D1z C B2z");
    expect(mergeText("Plan release C B A1z", "Plan release C3z B C A1z", "Plan release C B0z A1z")).toBe("Plan release C3z B0z C A1z");
  });

  it("ends Ann's and Bob's typing, merged key by key as their patches cross, with both sentences whole", () => {
    // Ann's first patch meets Bob's "Tu": both kept, Bob's (the service's) first.
    expect(mergeText("Announce on", "Announce on Tu", "Announce on Mo")).toBe("Announce on Tu Mo");
    // Bob goes on typing his word while Ann's " Mo" came in after it: his word stays whole.
    expect(mergeText("Announce on Tu", "Announce on Tu Mo", "Announce on Tuesday via em")).toBe("Announce on Tuesday via em Mo");
    // Bob finishes "email" while Ann finishes "Monday" later in the line: no base letter doubled.
    expect(mergeText("Announce on Tuesday via em Mo", "Announce on Tuesday via email Mo", "Announce on Tuesday via em Monday")).toBe(
      "Announce on Tuesday via email Monday",
    );
    expect(mergeText("Announce on Tuesday via email Monday", "Announce on Tuesday via email Monday", "Announce on Tuesday via email Monday via blog")).toBe(
      "Announce on Tuesday via email Monday via blog",
    );
  });

  it("merges two changes of one word by its characters, and puts what is still contested the service's first", () => {
    expect(mergeText("em", "email", "emx")).toBe("emailx");
    expect(mergeText("colour", "color", "colours")).toBe("colors");
    expect(mergeText("a\nb\nc", "a\ntheirs\nc", "a\nmine\nc")).toBe("a\ntheirsmine\nc");
  });

  it("keeps a line one side deleted while the other changed it, and deletes the lines around it that nobody changed", () => {
    expect(mergeText("a\nx y\nb", "a\nb", "a\nx y z\nb")).toBe("a\nx y z\nb");
    expect(mergeText("a\nx y\nb", "a\nx y z\nb", "a\nb")).toBe("a\nx y z\nb");
    expect(mergeText("a\nL1\nL2\nL3\nb", "a\nb", "a\nL1\nL2 changed\nL3\nb")).toBe("a\nL2 changed\nb");
    // A line put in between deleted lines stays; the deleted lines stay deleted.
    expect(mergeText("a\nL1\nL2\nb", "a\nb", "a\nL1\nnew\nL2\nb")).toBe("a\nnew\nb");
  });

  it("inside a line, deletes what either side deleted and keeps every inserted character, as live editors do", () => {
    expect(mergeText("the quick brown fox", "the fox", "the quick red brown fox")).toBe("the red fox");
    expect(mergeText("the quick brown fox", "the brown fox", "the quick fox")).toBe("the fox");
    expect(mergeText("keep this", "keep", "keep this!")).toBe("keep!");
  });

  it("applies changes of different lines as the rebase does", () => {
    expect(mergeText("a\nb\nc", "A\nb\nc", "a\nb\nC")).toBe("A\nb\nC");
    expect(mergeText("a", "a\nt", "a\nm")).toBe("a\nt\nm");
  });

  it("keeps twice what both put in at one point, and counts once what both deleted or replaced the same way", () => {
    // Both typed a blank after "beta", both pressed Enter after "a": two people typed them.
    expect(mergeText("beta", "beta ", "beta ")).toBe("beta  ");
    expect(mergeText("a", "a\n", "a\n")).toBe("a\n\n");
    expect(mergeText("a\nb\nc", "a\nb\nc\nd", "a\nb\nc\nd")).toBe("a\nb\nc\nd\nd");
    // Both fixed the same word, both deleted the same line or word.
    expect(mergeText("a\nteh cat", "a\nthe cat", "a\nthe cat")).toBe("a\nthe cat");
    expect(mergeText("a\nb\nc", "a\nc", "a\nc")).toBe("a\nc");
    expect(mergeText("a big cat", "a cat", "a cat")).toBe("a cat");
  });

  it("keeps surrogate pairs whole", () => {
    expect(mergeText("x😀y", "x😀😁y", "x😀😂y")).toBe("x😀😁😂y");
  });

  it("gives the empty text as one empty line", () => {
    expect(mergeLines(["a", "b"], [""], ["a"])).toEqual([""]);
    expect(mergeLines([""], [""], [""])).toEqual([""]);
  });
});
