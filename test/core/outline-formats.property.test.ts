import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalOutline, normalizeFileText } from "../../src/core/outline-text.js";
import { EXPORT_FORMATS, exportOutline, importOutline, type ExportFormat } from "../../src/core/outline-formats.js";
import { xmlSafe } from "../../src/core/xml-text.js";
import { propertyParams } from "./property-support.js";

/*
 * The round trips of export and import (docs/notation.md#export-and-import), for every format:
 * - a text written in the notation's canonical form (two spaces per level, boxes, blank lines, words
 *   of any characters a line holds, markup-like ones included) comes back exactly;
 * - any string at all (line breaks of every kind, tabs, odd indentation, lone surrogates) comes back
 *   as its canonical form: the outline survives, only the spaces that carry it are rewritten (and,
 *   in OPML, the characters XML cannot carry become U+FFFD); plain text gives back the text itself.
 * Canonical forms are fixed points, so importing an export again changes nothing.
 */

const word = fc.oneof(
  fc.constantFrom("a", "Launch", "&", "<b>", '"q"', "'", "[ ]", "[x]", "- ", "# ", "1.", "*", "`", "~~~", "\t", "\\", "&amp;", "é", "日本", "😀", "]]>", "<!--"),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 }),
);
/** A node's words: not starting with white space (that would be indentation), no line break. */
const contentArb = fc
  .tuple(fc.constantFrom("", "", "[ ] ", "[x] ", "[X] ", "[ ]\t"), fc.array(word, { minLength: 1, maxLength: 5 }), fc.constantFrom(" ", " ", "  "))
  .map(([box, words, gap]) => (box + words.join(gap)).replace(/[\n\r]/g, " "))
  .filter((content) => content.trimStart() === content && content !== "");

/** A canonical outline: each node at most one level below the node before it. */
const notationArb = fc.array(fc.tuple(fc.integer({ min: -1, max: 3 }), contentArb), { maxLength: 25 }).map((rows) => {
  let depth = -1;
  return rows
    .map(([step, content]) => {
      if (step < 0 && rows.length > 1) return "";
      depth = Math.max(0, Math.min(depth + 1, depth + 1 - step));
      return `${"  ".repeat(depth)}${content}`;
    })
    .join("\n");
});

/** Any string, weighted towards what an outline is made of. */
const anyTextArb = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.array(fc.constantFrom("a", "b", " ", "\t", "\n", "\r", "\r\n", "[ ]", "[x]", "-", "\u000B", "\uFEFF", "\uD800", "<", "&"), { maxLength: 40 }).map((parts) => parts.join("")),
);

const roundTrip = (format: ExportFormat, text: string) => {
  const result = importOutline(format, exportOutline(format, { title: "T", content: text }));
  if (!result.ok) throw new Error(`import failed: ${result.problem}`);
  return result.text;
};

describe("export and import round trips", () => {
  for (const format of EXPORT_FORMATS) {
    it(`gives back a text in the notation exactly (${format})`, () => {
      fc.assert(
        fc.property(notationArb, (text) => {
          expect(canonicalOutline(text)).toEqual(text);
          expect(roundTrip(format, text)).toEqual(text);
        }),
        propertyParams(400),
      );
    });
  }

  it("gives back any string as its canonical form, a fixed point of the round trip", () => {
    fc.assert(
      fc.property(anyTextArb, (text) => {
        const canonical = canonicalOutline(text);
        expect(canonicalOutline(canonical)).toEqual(canonical);
        expect(roundTrip("markdown", text)).toEqual(canonical);
        expect(roundTrip("markdown", canonical)).toEqual(canonical);
        expect(roundTrip("opml", text)).toEqual(xmlSafe(canonical));
        expect(roundTrip("text", text)).toEqual(normalizeFileText(text));
      }),
      propertyParams(600),
    );
  });
});
