/**
 * The characters two strings differ in, for the editor (remote changes become minimal character
 * changes, so CodeMirror keeps the cursor where the person types) and for the history's diff
 * (changed characters highlighted). jsdiff's `diffChars` does the diffing, by code points, so a
 * change never splits a surrogate pair; the common ends are cut first, and the middle is diffed
 * only within a work budget, past which it counts as replaced whole: coarser, never wrong.
 */
import { diffChars } from "diff";

export interface CharPiece {
  kind: "same" | "removed" | "added";
  text: string;
}

/** Roughly (N + M) · D steps of jsdiff's search: a few milliseconds at most. */
const WORK_BUDGET = 2_000_000;
/** A middle longer than this is replaced whole without a search (a rollback of a long text, say). */
const MAX_MIDDLE = 20_000;

/** Whether a cut at `at` of `text` would split a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff;
}

/** The length of the common prefix and of the common suffix (not overlapping), on code-point bounds. */
function commonEnds(a: string, b: string): [number, number] {
  const shorter = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < shorter && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  if (splitsPair(a, prefix) || splitsPair(b, prefix)) prefix--;
  let suffix = 0;
  while (suffix < shorter - prefix && a.charCodeAt(a.length - 1 - suffix) === b.charCodeAt(b.length - 1 - suffix)) suffix++;
  if (splitsPair(a, a.length - suffix) || splitsPair(b, b.length - suffix)) suffix--;
  return [prefix, suffix];
}

/** The pieces that turn `before` into `after`: same, removed and added runs, in order; removed before added. */
export function charPieces(before: string, after: string): CharPiece[] {
  const [prefix, suffix] = commonEnds(before, after);
  const oldMiddle = before.slice(prefix, before.length - suffix);
  const newMiddle = after.slice(prefix, after.length - suffix);
  const pieces: CharPiece[] = [];
  const push = (kind: CharPiece["kind"], text: string) => {
    if (text !== "") pieces.push({ kind, text });
  };
  push("same", before.slice(0, prefix));
  const size = oldMiddle.length + newMiddle.length;
  const found =
    oldMiddle !== "" && newMiddle !== "" && size <= MAX_MIDDLE
      ? diffChars(oldMiddle, newMiddle, { maxEditLength: Math.max(8, Math.floor(WORK_BUDGET / size)) })
      : undefined;
  if (found) {
    for (const change of found) push(change.added ? "added" : change.removed ? "removed" : "same", change.value);
  } else {
    push("removed", oldMiddle);
    push("added", newMiddle);
  }
  push("same", before.slice(before.length - suffix));
  return pieces;
}

/** A change of `from..to` (offsets in the old string) into `insert`. */
export interface CharChange {
  from: number;
  to: number;
  insert: string;
}

/** The minimal changes that turn `before` into `after`, offsets shifted by `offset`; sorted, none overlapping. */
export function charChanges(before: string, after: string, offset = 0): CharChange[] {
  const changes: CharChange[] = [];
  let at = offset;
  for (const piece of charPieces(before, after)) {
    const last = changes.at(-1);
    const touching = last !== undefined && last.to === at;
    if (piece.kind === "same") {
      at += piece.text.length;
    } else if (piece.kind === "removed") {
      if (touching) last.to += piece.text.length;
      else changes.push({ from: at, to: at + piece.text.length, insert: "" });
      at += piece.text.length;
    } else if (touching) {
      last.insert += piece.text;
    } else {
      changes.push({ from: at, to: at, insert: piece.text });
    }
  }
  return changes;
}
