import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitLines } from "../../src/core/lines.js";
import { mergeLines, mergeText } from "../../src/core/merge-text.js";
import { propertyParams } from "./property-support.js";

/*
 * The three-way merge of the live document (src/core/merge-text.ts). Texts are built from atoms:
 * letters, blanks and line breaks. Every letter is unique: the base's come from one alphabet, the
 * letters each side types from an alphabet of its own (the local side's are astral, two UTF-16 units
 * each), so "what a side typed" is exactly the letters of its text that the base lacks, and "a base
 * letter a side kept" is exactly one its text still has. Each side is the base with a few random
 * edits: a range of atoms taken out, fresh atoms put in.
 *
 * What is proved, for every generated base, theirs and mine:
 * - every letter either side typed is in the merged text exactly once, and the letters each side
 *   typed keep their order (they are a subsequence of the merged text);
 * - no letter appears that none of the three texts has, and a base letter appears no more often
 *   than the sides still have it: at most once when one side kept it, never when neither did. When
 *   both kept it, twice is possible (about 1 % of these heavily overlapping cases): a word diff may
 *   pair a side's word with other base words than the ones it grew from, and then both versions of
 *   a contested stretch carry that letter;
 * - edits at different places of one line (a word apart) merge to exactly both edits;
 * - a base letter both sides kept is kept, and one both sides took out stays out;
 * - the merge is the local text when the service's side is the base, and the service's when the
 *   local side is the base;
 * - it is a function of the three texts: two calls on fresh copies give the same lines.
 * Blanks and line breaks are not unique, so nothing is claimed about how many there are.
 */

type Atom = "L" | " " | "\n";
type Edit = { at: number; remove: number; insert: Atom[] };

function scenarioArb(atoms: Atom[]) {
  const atomArb = fc.constantFrom(...atoms);
  const editArb = fc.record({ at: fc.nat(), remove: fc.nat({ max: 5 }), insert: fc.array(atomArb, { maxLength: 6 }) });
  return fc.record({ base: fc.array(atomArb, { maxLength: 30 }), theirs: fc.array(editArb, { maxLength: 3 }), mine: fc.array(editArb, { maxLength: 3 }) });
}
const textsArb = scenarioArb(["L", "L", "L", " ", "\n"]);

/** A letter per call from one alphabet: Latin Extended (base), Cyrillic (theirs), CJK Extension B (mine, astral). */
function alphabet(first: number): () => string {
  let next = first;
  return () => String.fromCodePoint(next++);
}

function build(atoms: readonly Atom[], letter: () => string): string[] {
  return atoms.map((atom) => (atom === "L" ? letter() : atom));
}

function edited(base: readonly string[], edits: readonly Edit[], letter: () => string): string {
  const out = [...base];
  for (const edit of edits) {
    const at = edit.at % (out.length + 1);
    out.splice(at, edit.remove, ...build(edit.insert, letter));
  }
  return out.join("");
}

const lettersOf = (text: string) => Array.from(text).filter((c) => c !== " " && c !== "\n");

function scenario(input: { base: Atom[]; theirs: Edit[]; mine: Edit[] }) {
  const baseAtoms = build(input.base, alphabet(0x100));
  return { base: baseAtoms.join(""), theirs: edited(baseAtoms, input.theirs, alphabet(0x410)), mine: edited(baseAtoms, input.mine, alphabet(0x20000)) };
}

describe("mergeText", () => {
  it("keeps every letter either side typed exactly once and in its order, and invents none", () => {
    fc.assert(
      fc.property(textsArb, (input) => {
        const { base, theirs, mine } = scenario(input);
        const merged = lettersOf(mergeText(base, theirs, mine));
        const baseLetters = new Set(lettersOf(base));
        const count = (letter: string) => merged.filter((c) => c === letter).length;
        for (const side of [theirs, mine]) {
          const typed = lettersOf(side).filter((c) => !baseLetters.has(c));
          expect(typed.map(count)).toEqual(typed.map(() => 1));
          expect(merged.filter((c) => typed.includes(c))).toEqual(typed);
        }
        const known = new Set([...baseLetters, ...lettersOf(theirs), ...lettersOf(mine)]);
        expect(merged.filter((c) => !known.has(c))).toEqual([]);
      }),
      propertyParams(2_000),
    );
  });

  it("puts a base letter in no more often than the sides still have it: once when one side kept it", () => {
    fc.assert(
      fc.property(textsArb, (input) => {
        const { base, theirs, mine } = scenario(input);
        const merged = lettersOf(mergeText(base, theirs, mine));
        const [inTheirs, inMine] = [new Set(lettersOf(theirs)), new Set(lettersOf(mine))];
        const excess = lettersOf(base).filter((c) => merged.filter((m) => m === c).length > Number(inTheirs.has(c)) + Number(inMine.has(c)));
        expect(excess).toEqual([]);
      }),
      propertyParams(2_000),
    );
  });

  it("merges edits at different places of one line to exactly both edits", () => {
    // Words of unique letters; each side rewrites its own stretch of words, with a word between them.
    const sizesArb = fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 3, maxLength: 9 });
    const stretchArb = fc.record({ from: fc.nat(), words: fc.integer({ min: 1, max: 2 }), insert: fc.array(fc.constantFrom<Atom>("L", "L", " "), { maxLength: 6 }) });
    fc.assert(
      fc.property(sizesArb, stretchArb, stretchArb, fc.boolean(), (sizes, first, second, theirsFirst) => {
        const letter = alphabet(0x100);
        const words = sizes.map((size) => Array.from({ length: size }, letter).join(""));
        const a = first.from % (words.length - 2);
        const aEnd = Math.min(a + first.words, words.length - 2);
        const b = aEnd + 1 + (second.from % (words.length - aEnd - 1));
        const bEnd = Math.min(b + second.words, words.length);
        const [theirsLetter, mineLetter] = [alphabet(0x410), alphabet(0x20000)];
        const firstText = build(first.insert, theirsFirst ? theirsLetter : mineLetter).join("");
        const secondText = build(second.insert, theirsFirst ? mineLetter : theirsLetter).join("");
        /** The words with [from, to) replaced by `text`, for each such stretch. */
        const rewritten = (stretches: Array<[number, number, string]>) =>
          words.flatMap((word, k) => {
            const stretch = stretches.find(([from, to]) => k >= from && k < to);
            return stretch === undefined ? [word] : k === stretch[0] ? [stretch[2]] : [];
          });
        const withFirst = rewritten([[a, aEnd, firstText]]);
        const withSecond = rewritten([[b, bEnd, secondText]]);
        const [theirs, mine] = theirsFirst ? [withFirst, withSecond] : [withSecond, withFirst];
        const both = rewritten([
          [a, aEnd, firstText],
          [b, bEnd, secondText],
        ]);
        expect(mergeText(words.join(" "), theirs.join(" "), mine.join(" "))).toBe(both.join(" "));
      }),
      propertyParams(2_000),
    );
  });

  it("keeps a base letter both sides kept and leaves out one both sides took out", () => {
    fc.assert(
      fc.property(textsArb, (input) => {
        const { base, theirs, mine } = scenario(input);
        const merged = new Set(lettersOf(mergeText(base, theirs, mine)));
        const [inTheirs, inMine] = [new Set(lettersOf(theirs)), new Set(lettersOf(mine))];
        const baseLetters = lettersOf(base);
        expect(baseLetters.filter((c) => inTheirs.has(c) && inMine.has(c) && !merged.has(c))).toEqual([]);
        expect(baseLetters.filter((c) => !inTheirs.has(c) && !inMine.has(c) && merged.has(c))).toEqual([]);
      }),
      propertyParams(2_000),
    );
  });

  it("is the local text when the service's side is unchanged, and the service's when the local side is", () => {
    fc.assert(
      fc.property(textsArb, (input) => {
        const { base, theirs, mine } = scenario(input);
        expect(mergeText(base, base, mine)).toBe(mine);
        expect(mergeText(base, theirs, base)).toBe(theirs);
      }),
      propertyParams(1_000),
    );
  });

  it("depends on the three texts only", () => {
    fc.assert(
      fc.property(textsArb, (input) => {
        const { base, theirs, mine } = scenario(input);
        const once = mergeLines(splitLines(base), splitLines(theirs), splitLines(mine));
        const again = mergeLines([...splitLines(base)], [...splitLines(theirs)], [...splitLines(mine)]);
        expect(again).toEqual(once);
      }),
      propertyParams(500),
    );
  });
});
