import type { ChangeSet } from "@codemirror/state";

/**
 * Where the text this client typed lately is in the local text: the merge rule asks it where two
 * people put text in at one point (who goes on after their own text) and where new lines hang
 * (core/concurrent-changes.ts, core/text-changes.ts). The most recent ranges are kept, mapped
 * through every change; it is part of the live document's state, so that a replay of what was kept
 * decides every merge as it was decided (pending-log.ts).
 */
export interface OwnText {
  /** `[from, to)` in the local text, sorted, apart; `at` orders them by age. */
  readonly ranges: ReadonlyArray<{ readonly from: number; readonly to: number; readonly at: number }>;
  /** The age the next range gets. */
  readonly clock: number;
}

/** Ranges kept at most: the latest typing is what the merge rule looks at. */
const MAX_RANGES = 64;

export const NO_OWN_TEXT: OwnText = { ranges: [], clock: 0 };

/** Through a change of the local text made elsewhere: ranges move, and text put in next to them or inside them is not theirs. */
export function ownAfterRemote(own: OwnText, changes: ChangeSet): OwnText {
  if (own.ranges.length === 0 || changes.empty) return own;
  const inserted: Array<[number, number]> = [];
  changes.iterChanges((_fromA, _toA, fromB, toB) => {
    if (toB > fromB) inserted.push([fromB, toB]);
  });
  const ranges: Array<{ from: number; to: number; at: number }> = [];
  for (const range of own.ranges) {
    let from = changes.mapPos(range.from, 1);
    const to = changes.mapPos(range.to, -1);
    for (const [start, end] of inserted) {
      if (end <= from || start >= to) continue;
      if (start > from) ranges.push({ from, to: start, at: range.at });
      from = Math.max(from, end);
    }
    if (to > from) ranges.push({ from, to, at: range.at });
  }
  return { ranges, clock: own.clock };
}

/** Through a local edit: ranges move, and what it put in is own. */
export function ownAfterEdit(own: OwnText, changes: ChangeSet): OwnText {
  const moved = ownAfterRemote(own, changes).ranges.slice();
  changes.iterChanges((_fromA, _toA, fromB, toB) => {
    if (toB > fromB) moved.push({ from: fromB, to: toB, at: own.clock });
  });
  moved.sort((a, b) => a.from - b.from);
  const merged: Array<{ from: number; to: number; at: number }> = [];
  for (const range of moved) {
    const last = merged.at(-1);
    if (last && range.from <= last.to) merged[merged.length - 1] = { from: last.from, to: Math.max(last.to, range.to), at: Math.max(last.at, range.at) };
    else merged.push(range);
  }
  while (merged.length > MAX_RANGES) {
    const oldest = merged.reduce((min, range, k) => (range.at < merged[min]!.at ? k : min), 0);
    merged.splice(oldest, 1);
  }
  return { ranges: merged, clock: own.clock + 1 };
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
