/**
 * The characters two strings differ in, for the editor (remote changes become minimal character
 * changes, so CodeMirror keeps the cursor where the person types) and for the history's diff
 * (changed characters highlighted). The common ends are cut first; the middle is diffed by code
 * points (a change never splits a surrogate pair), keeping letters before blanks (weightedPieces),
 * or, when it is long, by jsdiff's `diffChars` within a work budget, past which it counts as
 * replaced whole: coarser, never wrong.
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

/** Past this many cells (code points before × after) the middle is diffed by jsdiff alone. */
const MAX_WEIGHTED_CELLS = 60_000;

/** What keeping a character is worth: a blank or a line break little, anything else more. */
function weight(char: string): number {
  return char === " " || char === "\t" || char === "\n" ? 1 : 3;
}

/**
 * What keeping a character typed here (and still there) is worth: two letters of anyone's. Where
 * one's own letter competes with a single letter both texts happen to share, the diff keeps one's
 * own, so one's unsent text beside it stays beside it (`secondB line` edited into `replaced by B`
 * keeps the `B`, and the `OB` typed after it follows). Much more, and the diff would keep one's own
 * at any price, reading long runs of others' text as taken out and put in again: in the simulation of
 * test/support/sync-simulation.ts (20,000 sessions) 1,000 brought 64 deleted characters back where
 * 2 to 6 bring the 2 or 3 of the plain diff.
 */
const OWN_WEIGHT = 6;

/**
 * The middle's pieces by a weighted longest common subsequence of code points: keeping a letter is
 * worth more than keeping a blank, so that a lone blank both happen to have never pulls a word out
 * of place (a word deleted and typed again elsewhere, in the other person's eyes). Of two ways
 * that keep as much, the one keeping the earlier characters of `before`.
 */
function weightedPieces(before: string, after: string, hints: PieceHints | undefined, push: (kind: CharPiece["kind"], text: string) => void): void {
  const a = Array.from(before);
  const b = Array.from(after);
  const n = a.length;
  const m = b.length;
  // The worth of keeping each character of `before` (`own` takes UTF-16 offsets in `before`).
  const worth = new Float64Array(n);
  for (let i = 0, at = 0; i < n; at += a[i]!.length, i++) worth[i] = hints && hints.own(at) ? OWN_WEIGHT : weight(a[i]!);
  const width = m + 1;
  const best = new Float64Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const skip = Math.max(best[(i + 1) * width + j]!, best[i * width + j + 1]!);
      best[i * width + j] = a[i] === b[j] ? Math.max(skip, worth[i]! + best[(i + 1) * width + j + 1]!) : skip;
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const here = best[i * width + j]!;
    if (a[i] === b[j] && here === worth[i]! + best[(i + 1) * width + j + 1]!) {
      push("same", a[i++]!);
      j++;
    }
    else if (here === best[(i + 1) * width + j]!) push("removed", a[i++]!);
    else push("added", b[j++]!);
  }
  while (i < n) push("removed", a[i++]!);
  while (j < m) push("added", b[j++]!);
}

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

/**
 * The pieces that turn `before` into `after`: same, removed and added runs, in order; removed before
 * added. With `hints`, characters typed here are kept first where `after` still has them, and a run
 * that this client's own unsent changes touch is never read as taken out and put in again.
 */
export function charPieces(before: string, after: string, hints?: PieceHints): CharPiece[] {
  const [prefix, suffix] = commonEnds(before, after);
  const oldMiddle = before.slice(prefix, before.length - suffix);
  const newMiddle = after.slice(prefix, after.length - suffix);
  const middle = joined();
  const cells = oldMiddle.length * newMiddle.length;
  const size = oldMiddle.length + newMiddle.length;
  const inMiddle: PieceHints | undefined = hints && { own: (at) => hints.own(prefix + at), touched: (from, to) => hints.touched(prefix + from, prefix + to) };
  if (cells > 0 && cells <= MAX_WEIGHTED_CELLS) {
    weightedPieces(oldMiddle, newMiddle, inMiddle, middle.push);
  } else {
    const found = cells > 0 && size <= MAX_MIDDLE ? diffChars(oldMiddle, newMiddle, { maxEditLength: Math.max(8, Math.floor(WORK_BUDGET / size)) }) : undefined;
    if (found) {
      for (const change of found) middle.push(change.added ? "added" : change.removed ? "removed" : "same", change.value);
    } else {
      middle.push("removed", oldMiddle);
      middle.push("added", newMiddle);
    }
  }
  const all = joined();
  all.push("same", before.slice(0, prefix));
  for (const piece of withoutChanceMatches(middle.pieces, inMiddle)) all.push(piece.kind, piece.text);
  all.push("same", before.slice(before.length - suffix));
  return all.pieces;
}

/** What a client knows of `before`, at UTF-16 offsets in it (charPieces). */
export interface PieceHints {
  /** Whether the character at `at` was typed here (and is still there in the local text). */
  own(at: number): boolean;
  /** Whether this client's unsent changes touch `from..to` ("cover": they delete or replace it all). */
  touched(from: number, to: number): boolean | "cover";
}

/** A list of pieces that joins runs of one kind as they are pushed: the pieces alternate, removed before added. */
function joined(): { pieces: CharPiece[]; push: (kind: CharPiece["kind"], text: string) => void } {
  const pieces: CharPiece[] = [];
  const push = (kind: CharPiece["kind"], text: string) => {
    if (text === "") return;
    const last = pieces.at(-1);
    if (last?.kind === kind) last.text += text;
    else if (last?.kind === "added" && kind === "removed" && pieces.at(-2)?.kind === "removed") pieces.at(-2)!.text += text;
    else if (last?.kind === "added" && kind === "removed") pieces.splice(pieces.length - 1, 0, { kind, text });
    else pieces.push({ kind, text });
  };
  return { pieces, push };
}

/**
 * The pieces with the kept runs that are mere chance replaced: a run kept between two removals, no
 * longer than the larger change on either side of it, holding nothing typed here and untouched by
 * this client's unsent changes (`hints`: a character deleted here must stay deleted), is a few letters
 * the old and the new text happen to share (`second line` replaced by `re` keeps no `e`). Kept, it
 * would cut the replacement in two, and text someone put in inside the removed range would land in
 * the middle of the new words. As diff-match-patch's semantic clean-up, narrowed to runs that lie
 * inside removals, so that text both sides kept is never taken out and put in again.
 */
function withoutChanceMatches(pieces: CharPiece[], hints: PieceHints | undefined): CharPiece[] {
  // One pass, so the work stays linear in the pieces: the changes before a run are those already
  // taken (a run made a change counts with them), those after it the ones that follow it as found.
  const out = joined();
  let at = 0;
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    const length = piece.text.length;
    if (piece.kind === "same" && k > 0 && k < pieces.length - 1) {
      const before = editsAround(out.pieces, out.pieces.length, -1);
      const after = editsAround(pieces, k, 1);
      const chance = before.removed > 0 && after.removed > 0 && length <= Math.max(before.removed, before.added) && length <= Math.max(after.removed, after.added);
      const known = hints !== undefined && (hints.touched(at, at + length) !== false || Array.from({ length }, (_, i) => hints.own(at + i)).some(Boolean));
      if (chance && !known) {
        out.push("removed", piece.text);
        out.push("added", piece.text);
        at += length;
        continue;
      }
    }
    out.push(piece.kind, piece.text);
    if (piece.kind !== "added") at += length;
  }
  return out.pieces;
}

/** The lengths removed and added in the run of changes right before (`side` -1) or after (1) piece `k`. */
function editsAround(pieces: CharPiece[], k: number, side: -1 | 1): { removed: number; added: number } {
  const found = { removed: 0, added: 0 };
  for (let j = k + side; j >= 0 && j < pieces.length && pieces[j]!.kind !== "same"; j += side) found[pieces[j]!.kind as "removed" | "added"] += pieces[j]!.text.length;
  return found;
}

/** Replace `from..to` (offsets in the old string, UTF-16 code units as editors count) by `insert`. */
export interface TextEdit {
  from: number;
  to: number;
  insert: string;
}

/**
 * What a client knows of who put in what, at offsets of the text a change applies to: whether a run
 * of text others put in lately ends at `at` (`theirsEnd`), and whether the character before `at` was
 * typed here (`ownBefore`). Where a change could be read two ways, both the same text, they choose
 * (charChanges; changesOfLineOps in text-changes.ts).
 */
export interface AlignHints {
  theirsEnd(at: number): boolean;
  ownBefore(at: number): boolean;
  /** Whether this client's unsent changes touch `from..to` ("cover": they delete or replace it all). */
  touched(from: number, to: number): boolean | "cover";
}

/**
 * The minimal changes that turn `before` into `after`, offsets shifted by `offset`; sorted, none
 * overlapping. Text put in beside like characters could go at several places, all the same text (a
 * blank put in after a blank, before it or after it): it goes where the diff puts it (as late as it
 * can), unless that is right after text of one's own while another of those places is the end of
 * text others put in lately (`hints`, of offsets shifted): then at the nearest such place. People
 * type on at the end of what they just typed.
 */
export function charChanges(before: string, after: string, offset = 0, hints?: AlignHints): TextEdit[] {
  const changes = minimalChanges(before, after, offset, hints && { own: (at) => hints.ownBefore(offset + at + 1), touched: (from, to) => hints.touched(offset + from, offset + to) });
  if (hints) for (let k = 0; k < changes.length; k++) slide(before, changes, k, offset, hints);
  return changes;
}

/** A character that can take part in a slide: not half of a surrogate pair. */
const single = (char: string | undefined) => char !== undefined && (char < "\ud800" || char > "\udfff");

/** Moves the insertion `changes[k]` (if it is one, right after own text) to the nearest of its equal places at the end of others' text. */
function slide(before: string, changes: TextEdit[], k: number, offset: number, hints: AlignHints): void {
  const edit = changes[k]!;
  if (edit.from !== edit.to || edit.insert === "" || !hints.ownBefore(edit.from) || hints.theirsEnd(edit.from)) return;
  // Never onto a neighbouring change: places strictly between them.
  const low = k > 0 ? changes[k - 1]!.to - offset + 1 : 0;
  const high = k + 1 < changes.length ? changes[k + 1]!.from - offset - 1 : before.length;
  const places: Array<{ at: number; insert: string }> = [];
  for (let at = edit.from - offset, insert = edit.insert; at > low && single(before[at - 1]) && before[at - 1] === insert.at(-1); ) {
    insert = before[--at]! + insert.slice(0, -1);
    places.push({ at, insert });
  }
  for (let at = edit.from - offset, insert = edit.insert; at < high && single(before[at]) && before[at] === insert[0]; ) {
    insert = insert.slice(1) + before[at++]!;
    places.push({ at, insert });
  }
  const from = edit.from - offset;
  const found = places.filter((place) => hints.theirsEnd(place.at + offset)).sort((x, y) => Math.abs(x.at - from) - Math.abs(y.at - from) || x.at - y.at)[0];
  if (found) changes[k] = { from: found.at + offset, to: found.at + offset, insert: found.insert };
}

function minimalChanges(before: string, after: string, offset: number, hints: PieceHints | undefined): TextEdit[] {
  const changes: TextEdit[] = [];
  let at = offset;
  for (const piece of charPieces(before, after, hints)) {
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
