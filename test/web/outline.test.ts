import { describe, expect, it } from "vitest";
import { nodeSubject, parentLine, parseLine, storyAbove, ticketUrl, trackerSlug, withBox, withLink } from "../../web/outline.js";

describe("the outline notation", () => {
  it("reads indentation, the status box and the first ticket link of a line", () => {
    expect(parseLine("  [x] Ship it #US-12 and #T-3")).toEqual({
      indent: 2,
      indentLength: 2,
      blank: false,
      box: { done: true, from: 2, to: 5 },
      link: { kind: "story", ref: 12, from: 14, to: 20 },
    });
    expect(parseLine("\tplain #T-7")).toEqual({ indent: 4, indentLength: 1, blank: false, link: { kind: "task", ref: 7, from: 7, to: 11 } });
    expect(parseLine("   ")).toEqual({ indent: 3, indentLength: 3, blank: true });
  });

  it("takes a box only at the start of the node text and a link only as a whole token", () => {
    expect(parseLine("see [x] later").box).toBeUndefined();
    expect(parseLine("[x]done").box).toBeUndefined();
    expect(parseLine("[ ]").box).toEqual({ done: false, from: 0, to: 3 });
    expect(parseLine("a#US-1 b#T-2x #US-0 #US-x ##US-4").link).toBeUndefined();
    expect(parseLine("(#T-9)").link).toEqual({ kind: "task", ref: 9, from: 1, to: 5 });
  });

  it("finds the tracker project named anywhere in the text", () => {
    expect(trackerSlug("Plan\n  notes &tracker.alice-folio here")).toEqual("alice-folio");
    expect(trackerSlug("mail a&tracker.x")).toBeUndefined();
    expect(trackerSlug("nothing")).toBeUndefined();
  });

  it("makes a line the child of the nearest less indented line above, skipping blank lines", () => {
    const lines = ["root", "  child", "", "    grandchild", "  second", "other"];
    expect(parentLine(lines, 0)).toBeUndefined();
    expect(parentLine(lines, 1)).toEqual(0);
    expect(parentLine(lines, 3)).toEqual(1);
    expect(parentLine(lines, 4)).toEqual(0);
    expect(parentLine(lines, 5)).toBeUndefined();
  });

  it("puts a task under the nearest story among its ancestors, else the nearest story above", () => {
    const lines = ["Epic #US-1", "  Story #US-2", "  sibling", "    task", "loose"];
    expect(storyAbove(lines, 3)).toEqual({ line: 0, ref: 1 });
    expect(storyAbove(lines, 4)).toEqual({ line: 1, ref: 2 });
    expect(storyAbove(["no", "  stories"], 1)).toBeUndefined();
  });

  it("writes links and status boxes onto a line and reads the node's own words", () => {
    expect(withLink("  Write the form  ", "task", 5)).toEqual("  Write the form #T-5");
    expect(withLink("", "story", 1)).toEqual("#US-1");
    expect(withBox("  [ ] Login #US-3", true)).toEqual("  [x] Login #US-3");
    expect(withBox("  Login #US-3", false)).toEqual("  [ ] Login #US-3");
    expect(nodeSubject("  [x] Login page #US-3 &tracker.alice-folio")).toEqual("Login page");
  });

  it("links a ticket to the tracker's web page", () => {
    expect(ticketUrl("https://tree.taiga.io", "alice-folio", { kind: "story", ref: 3 })).toEqual("https://tree.taiga.io/project/alice-folio/us/3");
    expect(ticketUrl("https://tree.taiga.io", "alice-folio", { kind: "task", ref: 4 })).toEqual("https://tree.taiga.io/project/alice-folio/task/4");
  });
});
