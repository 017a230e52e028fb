import { describe, expect, it } from "vitest";
import { joinLines, normalizeLineEndings, splitLines } from "../../src/core/lines.js";

describe("splitLines", () => {
  it("splits the empty text into one empty line", () => {
    expect(splitLines("")).toEqual([""]);
  });

  it("splits a text ending in a line break into its line and an empty last line", () => {
    expect(splitLines("a\n")).toEqual(["a", ""]);
  });

  it("treats CRLF as one line break", () => {
    expect(splitLines("a\r\nb\r\n")).toEqual(["a", "b", ""]);
  });

  it("keeps a lone CR inside its line", () => {
    expect(splitLines("a\rb\nc")).toEqual(["a\rb", "c"]);
  });
});

describe("joinLines", () => {
  it("joins lines with LF", () => {
    expect(joinLines(["a", "b", ""])).toEqual("a\nb\n");
  });

  it("joins one empty line and no line alike into the empty text", () => {
    expect([joinLines([""]), joinLines([])]).toEqual(["", ""]);
  });

  it("gives back the LF form of a split CRLF text", () => {
    expect(joinLines(splitLines("x\r\ny\r\n"))).toEqual("x\ny\n");
  });
});

describe("normalizeLineEndings", () => {
  it("turns every CRLF into LF and leaves lone CR and LF alone", () => {
    expect(normalizeLineEndings("a\r\nb\rc\nd\r\n")).toEqual("a\nb\rc\nd\n");
  });
});
