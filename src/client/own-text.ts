import type { ChangeSet } from "@codemirror/state";
import type { AlignHints } from "../core/text-changes.js";

/**
 * Where the text this client typed lately is in the local text: the merge rule asks it where two
 * people put text in at one point (who goes on after their own text) and where new lines hang
 * (core/concurrent-changes.ts, core/text-changes.ts). Beside it, where text others put in lately is
 * (`theirs`): of the equal alignments of a remote change whose text could go on either side of like
 * characters, the one that goes on after their latest text is taken (sync-text.ts). The most recent
 * ranges are kept, mapped through every change; it is part of the live document's state, so that a
 * replay of what was kept decides every merge as it was decided (pending-log.ts).
 */
export interface OwnText {
  /** `[from, to)` in the local text, sorted, apart; `at` orders them by age. */
  readonly ranges: ReadonlyArray<Range>;
  /** The age the next range gets (one more at each local edit). */
  readonly clock: number;
  /** `[from, to)` in the local text that remote changes put in lately, sorted, apart; `at` is the clock when they came. */
  readonly theirs?: ReadonlyArray<Range>;
}

interface Range {
  readonly from: number;
  readonly to: number;
  readonly at: number;
}

/** Ranges kept at most: the latest typing is what the merge rule looks at. */
const MAX_RANGES = 64;
/** Others' ranges kept at most, and how many local edits they stay recent for. */
const MAX_THEIRS = 16;
const THEIRS_AGE = 32;

export const NO_OWN_TEXT: OwnText = { ranges: [], clock: 0 };

/** `ranges` through `changes`: they move, and text put in next to them or inside them is not theirs. */
function moved(ranges: ReadonlyArray<Range>, changes: ChangeSet): Range[] {
  const inserted: Array<[number, number]> = [];
  changes.iterChanges((_fromA, _toA, fromB, toB) => {
    if (toB > fromB) inserted.push([fromB, toB]);
  });
  const out: Range[] = [];
  for (const range of ranges) {
    let from = changes.mapPos(range.from, 1);
    const to = changes.mapPos(range.to, -1);
    for (const [start, end] of inserted) {
      if (end <= from || start >= to) continue;
      if (start > from) out.push({ from, to: start, at: range.at });
      from = Math.max(from, end);
    }
    if (to > from) out.push({ from, to, at: range.at });
  }
  return out;
}

/** `ranges` and the text `changes` put in (as ranges of age `at`), sorted, touching ones joined, the oldest past `max` dropped. */
function joined(ranges: Range[], changes: ChangeSet, at: number, max: number): Range[] {
  changes.iterChanges((_fromA, _toA, fromB, toB) => {
    if (toB > fromB) ranges.push({ from: fromB, to: toB, at });
  });
  ranges.sort((a, b) => a.from - b.from);
  const merged: Range[] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range.from <= last.to) merged[merged.length - 1] = { from: last.from, to: Math.max(last.to, range.to), at: Math.max(last.at, range.at) };
    else merged.push(range);
  }
  while (merged.length > max) {
    const oldest = merged.reduce((min, range, k) => (range.at < merged[min]!.at ? k : min), 0);
    merged.splice(oldest, 1);
  }
  return merged;
}

/** With `theirs` set (left out when empty, as a record written before it had them). */
function withTheirs(own: OwnText, ranges: ReadonlyArray<Range>, theirs: Range[]): OwnText {
  const recent = theirs.filter((range) => range.at > own.clock - THEIRS_AGE);
  return recent.length > 0 ? { ranges, clock: own.clock, theirs: recent } : { ranges, clock: own.clock };
}

/** Through a change of the local text made elsewhere: ranges move, text put in next to them or inside them is not own, and it is theirs. */
export function ownAfterRemote(own: OwnText, changes: ChangeSet): OwnText {
  if (changes.empty) return own;
  const ranges = own.ranges.length === 0 ? own.ranges : moved(own.ranges, changes);
  return withTheirs(own, ranges, joined(moved(own.theirs ?? [], changes), changes, own.clock, MAX_THEIRS));
}

/** Through a local edit: ranges move, and what it put in is own. */
export function ownAfterEdit(own: OwnText, changes: ChangeSet): OwnText {
  const ranges = joined(moved(own.ranges, changes), changes, own.clock, MAX_RANGES);
  const next = { ranges, clock: own.clock + 1 };
  return withTheirs(next, ranges, moved(own.theirs ?? [], changes));
}

/** Whether the character at `pos` of the local text is own. */
export function isOwnAt(own: OwnText, pos: number): boolean {
  return own.ranges.some((range) => range.from <= pos && pos < range.to);
}

/**
 * For a text that `toLocal` turns into the local text (an empty change: the local text itself):
 * whether the character before `at` in it is own (still there in the local text, and typed here).
 */
export function ownBefore(own: OwnText, toLocal: ChangeSet): (at: number) => boolean {
  return (at) => {
    if (at <= 0 || own.ranges.length === 0) return false;
    const start = toLocal.mapPos(at - 1, 1);
    return toLocal.mapPos(at, -1) - start === 1 && isOwnAt(own, start);
  };
}

/**
 * For a text that `toLocal` turns into the local text: whether the character before `at` in it is
 * the last of a run that others put in lately, and whether it is own (both still there in the local
 * text). Where a remote change reads two ways, they choose (core/char-diff.ts, AlignHints).
 */
export function alignHints(own: OwnText, toLocal: ChangeSet): AlignHints {
  const theirs = own.theirs ?? [];
  return {
    ownBefore: ownBefore(own, toLocal),
    touched: (from, to) => toLocal.touchesRange(from, to),
    theirsEnd: (at) => {
      if (at <= 0 || theirs.length === 0) return false;
      const start = toLocal.mapPos(at - 1, 1);
      return toLocal.mapPos(at, -1) - start === 1 && theirs.some((range) => range.to === start + 1);
    },
  };
}
