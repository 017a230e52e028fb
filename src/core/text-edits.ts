import { diffArrays } from "diff";
import type { NormalizedOp } from "./normalized-op.js";

/** Replace `previous.slice(from, to)` by `insert`; offsets in UTF-16 code units, as editors count. */
export interface TextEdit {
  readonly from: number;
  readonly to: number;
  readonly insert: string;
}

/** Past this many characters a changed stretch is one edit: a character diff of it would cost too much. */
const MAX_DIFFED = 10_000;
/** Bound of the character diff's search (edits); past it the stretch is one edit, never wrong. */
const MAX_EDIT_LENGTH = 200;

/**
 * The character edits that turn the text of `before` into the text of apply(before, ops), for
 * canonical `ops` (as diffLines returns): sorted, not overlapping, against the text of `before`.
 * Each line op becomes the edit of the characters it changes, and a run of lines replaced by other
 * lines is diffed by characters (code points), so that a change at one place of a line leaves a
 * cursor elsewhere in that line where it was. Deterministic; bounded cost per changed stretch.
 */
export function textEdits(before: readonly string[], ops: readonly NormalizedOp[], slide: Slide = "early", source?: string): TextEdit[] {
  const starts: number[] = [];
  let offset = 0;
  for (const line of before) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const length = offset - 1;
  const lineCount = before.length;
  const at = (index: number) => (index < lineCount ? starts[index]! : length);
  const edits: TextEdit[] = [];
  for (const op of ops) {
    const end = op.index + op.count;
    const added = op.lines.join("\n");
    if (op.count > 0 && op.lines.length > 0) {
      edits.push(...diffed(at(op.index), before.slice(op.index, end).join("\n"), added, slide, source));
    } else if (op.count > 0) {
      // A deletion takes the line break after its lines, or the one before them at the end of the text.
      if (end < lineCount) edits.push({ from: at(op.index), to: starts[end]!, insert: "" });
      else edits.push({ from: op.index > 0 ? starts[op.index]! - 1 : 0, to: length, insert: "" });
    } else if (op.lines.length > 0) {
      if (op.index < lineCount) edits.push({ from: starts[op.index]!, to: starts[op.index]!, insert: `${added}\n` });
      else edits.push({ from: length, to: length, insert: `\n${added}` });
    }
  }
  return edits;
}

/**
 * Where text put in where it could slide (next to the same characters) is placed. "early" (the
 * default): as early as it can be, for a merge with local edits: the merge puts the service's text
 * first where both put text in at one point (" C" put in after "today" where the local text had
 * typed " "), and a cursor after the local text then stays after it. "late": as late as it can be,
 * for the service's text alone over a text with no local edits: what reached the service later
 * went after what was there at the same point (a blank someone else typed after this author's own
 * blank at the end of a line goes after this author's cursor).
 */
export type Slide = "early" | "late";

/** How far a pure insert is slid, each way, looking for where it reads as in the merge's source. */
const MAX_SOURCE_SLIDE = 200;
/** How many places of it are looked up in the source at most. */
const MAX_SOURCE_LOOKUPS = 8;
/** A longer pure insert is left where it is cut (a paste, not two people's words at one point). */
const MAX_SOURCE_INSERT = 1_000;

/**
 * The edits that turn `old`, found at `from`, into `next`: common ends cut off (the end first for
 * "early", the start first for "late"), the middle diffed by characters.
 */
function diffed(from: number, old: string, next: string, slide: Slide, source: string | undefined): TextEdit[] {
  const shorter = Math.min(old.length, next.length);
  const commonEnd = (limit: number) => {
    let n = 0;
    while (n < limit && old.charCodeAt(old.length - 1 - n) === next.charCodeAt(next.length - 1 - n)) n++;
    return n;
  };
  const commonStart = (limit: number) => {
    let n = 0;
    while (n < limit && old.charCodeAt(n) === next.charCodeAt(n)) n++;
    return n;
  };
  let suffix: number;
  let prefix: number;
  if (slide === "early") {
    suffix = commonEnd(shorter);
    prefix = commonStart(shorter - suffix);
  } else {
    prefix = commonStart(shorter);
    suffix = commonEnd(shorter - prefix);
  }
  // Never cut a surrogate pair in two.
  if (prefix > 0 && isHighSurrogate(old.charCodeAt(prefix - 1))) prefix--;
  if (suffix > 0 && isLowSurrogate(old.charCodeAt(old.length - suffix))) suffix--;
  const oldMiddle = old.slice(prefix, old.length - suffix);
  const newMiddle = next.slice(prefix, next.length - suffix);
  const start = from + prefix;
  const whole: TextEdit[] = [{ from: start, to: start + oldMiddle.length, insert: newMiddle }];
  if (oldMiddle.length === 0 && newMiddle.length > 0 && newMiddle.length <= MAX_SOURCE_INSERT && source !== undefined) {
    const at = asInSource(next, prefix, newMiddle.length, slide, source);
    if (at !== prefix) return [{ from: from + at, to: from + at, insert: next.slice(at, at + newMiddle.length) }];
  }
  if (oldMiddle.length === 0 || newMiddle.length === 0 || oldMiddle.length + newMiddle.length > MAX_DIFFED) return whole;
  const diffedChanges = diffArrays(Array.from(oldMiddle), Array.from(newMiddle), { maxEditLength: MAX_EDIT_LENGTH });
  if (diffedChanges === undefined) return whole;
  // The common ends take part in the slide: an insert may slide into them.
  const ends = (text: string): Change[] => (text.length > 0 ? [{ value: Array.from(text) }] : []);
  const changes = slid([...ends(old.slice(0, prefix)), ...diffedChanges, ...ends(old.slice(old.length - suffix))], slide);
  const edits: TextEdit[] = [];
  let cursor = from;
  for (const change of changes) {
    const text = change.value.join("");
    const last = edits.at(-1);
    if (!change.added && !change.removed) {
      cursor += text.length;
    } else if (last !== undefined && last.to === cursor) {
      // A removal and an addition next to each other are one edit.
      edits[edits.length - 1] = { from: last.from, to: change.removed ? cursor + text.length : cursor, insert: change.added ? last.insert + text : last.insert };
      if (change.removed) cursor += text.length;
    } else {
      edits.push({ from: cursor, to: change.removed ? cursor + text.length : cursor, insert: change.added ? text : "" });
      if (change.removed) cursor += text.length;
    }
  }
  return edits;
}

/**
 * Where a pure insert of `length` at `at` in `next` goes when a merge put it in from `source` (the
 * service's side; docs/editing-protocol.md, "What the editor gets"): where it is, unless its text
 * is nowhere in `source` while another place it can slide to over the same characters is whole
 * words and is. Two people's words that end alike make such a pair: " Tuesday v" put in after
 * "Monday v" cuts as "day v Tues" after "Mon", or could be " v Tuesday" after "Monday"; only the
 * service's " Tuesday v" is what the other person typed. Were it taken for " v Tuesday", a cursor
 * after the local " v" would be after theirs, and the next letter would land in their word.
 * Bounded: inserts up to MAX_SOURCE_INSERT, MAX_SOURCE_SLIDE places each way, MAX_SOURCE_LOOKUPS lookups.
 * The caller passes as `source` only the service's lines the local text lacks, so words found
 * elsewhere in the document do not count.
 */
function asInSource(next: string, at: number, length: number, slide: Slide, source: string): number {
  if (source.includes(next.slice(at, at + length))) return at;
  const places: number[] = [];
  // Left while the character before the insert is its last one, right while the one after it is its first.
  for (let p = at, steps = 0; p > 0 && steps < MAX_SOURCE_SLIDE && next[p - 1] === next[p + length - 1]; steps++) places.push(--p);
  places.reverse();
  for (let p = at, steps = 0; p + length < next.length && steps < MAX_SOURCE_SLIDE && next[p + length] === next[p]; steps++) places.push(++p);
  if (slide === "late") places.reverse();
  // Starting with a blank, it cuts no surrogate pair at its start; the character after it must not be a pair's second half.
  const whole = (p: number) => /^[ \t]$/.test(next[p]!) && !/^[ \t]$/.test(next[p + length - 1]!) && !isLowSurrogate(next.charCodeAt(p + length));
  let lookups = 0;
  for (const p of places) {
    if (!whole(p)) continue;
    if (++lookups > MAX_SOURCE_LOOKUPS) break;
    if (source.includes(next.slice(p, p + length))) return p;
  }
  return at;
}

interface Change {
  value: string[];
  added?: boolean;
  removed?: boolean;
}

/**
 * The character diff with every piece only put in placed, among the places it could slide to over
 * the same characters (the text is the same), where it is whole words: starting with a blank and
 * not ending with one, as the merge puts words in (their blanks before them, docs/line-model.md).
 * Of several such places, or none, the earliest ("early") or latest ("late"). The diff alone may
 * cut one insert in two around a kept character ("Plan  C" to "Plan B2  C" as "B2" and " " on
 * either side of a blank), which would leave a cursor typing after the first blank on the wrong
 * side of " B2"; placed, it is one insert, " B2" after "Plan".
 */
function slid(changes: readonly Change[], slide: Slide): Change[] {
  // One entry per character, kept, put in or taken out; "late" is "early" on the reversed list.
  const marks: Array<{ kind: "keep" | "add" | "remove"; char: string }> = [];
  for (const change of changes) for (const char of change.value) marks.push({ kind: change.added ? "add" : change.removed ? "remove" : "keep", char });
  const late = slide === "late";
  if (late) marks.reverse();
  const swap = (add: number, keep: number) => {
    marks[add] = { kind: "add", char: marks[add]!.char };
    marks[keep] = { kind: "keep", char: marks[keep]!.char };
  };
  const wholeWords = (first: number, last: number) => {
    const chars = marks.slice(first, last + 1).map((mark) => mark.char);
    const text = (late ? chars.reverse() : chars).join("");
    return /^[ \t]/.test(text) && !/[ \t]$/.test(text);
  };
  let k = 0;
  while (k < marks.length) {
    if (marks[k]!.kind !== "add") {
      k++;
      continue;
    }
    let first = k;
    let last = k;
    while (last + 1 < marks.length && marks[last + 1]!.kind === "add") last++;
    // As far back as it goes: a kept character before the run equals its last one.
    while (first > 0 && marks[first - 1]!.kind === "keep" && marks[first - 1]!.char === marks[last]!.char) {
      swap(first - 1, last);
      first--;
      last--;
      // A run put in just before joins this one.
      while (first > 0 && marks[first - 1]!.kind === "add") first--;
    }
    // Then forward to the first place where it is whole words, if any, short of the next run.
    let most = 0;
    while (
      last + most + 1 < marks.length &&
      marks[last + most + 1]!.kind === "keep" &&
      marks[last + most + 1]!.char === marks[first + most]!.char &&
      marks[last + most + 2]?.kind !== "add"
    ) {
      most++;
    }
    let steps = 0;
    while (steps <= most && !wholeWords(first + steps, last + steps)) steps++;
    if (steps <= most) {
      for (let t = 0; t < steps; t++) swap(last + t + 1, first + t);
      first += steps;
      last += steps;
    }
    k = last + 1;
  }
  if (late) marks.reverse();
  const out: Change[] = [];
  for (const mark of marks) {
    const previous = out.at(-1);
    const added = mark.kind === "add";
    const removed = mark.kind === "remove";
    if (previous && !!previous.added === added && !!previous.removed === removed) previous.value.push(mark.char);
    else out.push({ value: [mark.char], ...(added ? { added } : {}), ...(removed ? { removed } : {}) });
  }
  return out;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
