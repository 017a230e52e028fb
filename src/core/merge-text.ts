import { diffWeighted } from "./diff-weighted.js";
import { joinLines, splitLines } from "./lines.js";
import { mergeItems, type MergeLevel } from "./merge-items.js";

/**
 * The three-way merge of the live document (docs/line-model.md#merging-inside-lines): `base` is the
 * text both sides started from, `theirs` the service's text, `mine` the local one, each as lines.
 * Nothing either side put in is lost, and the answer depends on the three texts alone, so every
 * client that merges the same texts gets the same lines.
 *
 * Three levels, each the rebase rule of the service over a diff of its own items: lines, then the
 * words of the lines both sides changed, then the characters of the words both sides changed.
 * What is still contested after the characters (two different changes of one stretch of
 * characters) is the service's version followed by the local one. A line (or a word) one side
 * deleted while the other changed it keeps the change.
 */
export function mergeLines(base: readonly string[], theirs: readonly string[], mine: readonly string[]): string[] {
  const merged = mergeItems(base, theirs, mine, LINES);
  // Every line taken out leaves the empty text, which is one empty line (docs/line-model.md).
  return merged.length > 0 ? merged : [""];
}

/** The same merge of three texts given as strings (lines joined by "\n"). */
export function mergeText(base: string, theirs: string, mine: string): string {
  return joinLines(mergeLines(splitLines(base), splitLines(theirs), splitLines(mine)));
}

/**
 * Words: a run of letters, digits, marks and "_", or any other single character, each with the
 * blanks before it; blanks at the end of a line, and a line break, are words of their own. Merging
 * whole words keeps two people's words apart (" Monday" and " Tuesday" typed at one point stay two
 * words, never letters shuffled together). The blanks go with the word after them so that a diff
 * pairs words, never a lone blank: with blanks as words of their own, "Plan B4" against
 * "Plan C7z B4" could pair the blanks and take "B4" for the base of "C7z", and a letter typed at
 * the end of "B4" meanwhile would land after "C7z".
 */
const WORD = /\n|[^\S\n]*(?:[\p{L}\p{N}\p{M}_]+|[^\s])|[^\S\n]+/gu;

const words = (text: string): string[] => text.match(WORD) ?? [];

/** Characters are code points, so that a surrogate pair is never cut in two. */
const characters = (text: string): string[] => Array.from(text);

const CHARACTERS: MergeLevel = {
  deletionsYield: false,
  sameChange: "once",
  resolve: (_base, theirs, mine) => [...theirs, ...mine],
};

const WORDS: MergeLevel = {
  deletionsYield: false,
  sameChange: "once",
  // A short word typed twice (" B", the start of two words of one person) must not cost a longer one.
  diff: diffWeighted,
  resolve: (base, theirs, mine) => mergeItems(characters(base.join("")), characters(theirs.join("")), characters(mine.join("")), CHARACTERS),
};

const LINES: MergeLevel = {
  deletionsYield: true,
  sameChange: "finer",
  // Regions are never empty, so joining and splitting them gives back the same lines.
  resolve: (base, theirs, mine) => splitLines(mergeItems(words(joinLines(base)), words(joinLines(theirs)), words(joinLines(mine)), WORDS).join("")),
};
