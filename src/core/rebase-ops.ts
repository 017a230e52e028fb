import { canonicalOps } from "./canonical-ops.js";
import { isNoOp, opEnd, type NormalizedOp } from "./normalized-op.js";

/** A submitted op and a foreign op that truly overlap (docs/line-model.md#true-overlap). */
export interface RebaseOverlap {
  readonly submitted: NormalizedOp;
  readonly foreign: NormalizedOp;
}

/**
 * The outcome of {@link rebaseOps}: the submitted ops shifted onto the current text, or every pair
 * of ops that truly overlap, in the order of the submitted ops, then of the foreign ones.
 */
export type RebaseResult = { ok: true; ops: NormalizedOp[] } | { ok: false; overlaps: RebaseOverlap[] };

/**
 * Rebases a stale patch by the rule in docs/line-model.md#rebase-of-a-stale-patch. Both lists are valid and against the same base
 * text; `foreign` is what happened since that base (the composition of the later versions). On
 * success the ops are against apply(foreign, base), in canonical form.
 *
 * Each op covers the base range [index, index + count), an insert the empty range at its index.
 * Not an overlap: ranges that only touch; an insert at the start of a range (it goes before it) or at
 * its end (after it); two inserts at one index (the foreign lines come first); and a submitted hunk
 * that makes exactly the change a foreign hunk made (dropped, see dropChangesAlreadyMade).
 *
 * Cost: linear in the number of ops and the lines they carry; the text is never looked at.
 *
 * Relation to `git merge-file` (docs/line-model.md#relation-to-a-three-way-merge): the rule judges the ops' ranges, git judges
 * its own diff of the texts. They agree on all-distinct texts as long as every op really changes what
 * it covers and puts in no base line. Two corners need the texts: an op that rewrites a line with
 * the same content (also a composition in which a later version undid an earlier one) counts as a
 * change here but not for git, and is removed by minimizeOps; a moved line (a base line deleted and
 * put in elsewhere) may be aligned differently by git's diff, and rebasing diffLines(base, current)
 * over diffLines(base, patched) follows git there.
 */
export function rebaseOps(foreign: readonly NormalizedOp[], submitted: readonly NormalizedOp[]): RebaseResult {
  const theirs = foreign.filter((op) => !isNoOp(op));
  const ours = dropChangesAlreadyMade(
    theirs,
    submitted.filter((op) => !isNoOp(op)),
  );
  const overlaps = findOverlaps(theirs, ours);
  if (overlaps.length > 0) return { ok: false, overlaps };
  return { ok: true, ops: canonicalOps(shiftOver(theirs, ours)) };
}

/**
 * True when {@link rebaseOps} drops a hunk of `submitted` as a change already made (the same base
 * range, the same lines as a hunk of `foreign`). A client that merges tells by this that the service
 * kept once what two people typed at once (docs/editing-protocol.md, "The client").
 */
export function changeAlreadyMade(foreign: readonly NormalizedOp[], submitted: readonly NormalizedOp[]): boolean {
  const ours = submitted.filter((op) => !isNoOp(op));
  return dropChangesAlreadyMade(
    foreign.filter((op) => !isNoOp(op)),
    ours,
  ).length < ours.length;
}

/** A maximal run of ops of one list whose ranges touch, with the base range it covers and its lines. */
interface Hunk {
  readonly start: number;
  readonly end: number;
  readonly ops: readonly NormalizedOp[];
}

function hunksOf(ops: readonly NormalizedOp[]): Hunk[] {
  const hunks: Hunk[] = [];
  let run: NormalizedOp[] = [];
  let start = 0;
  let end = -1;
  for (const op of ops) {
    if (op.index !== end) {
      if (run.length > 0) hunks.push({ start, end, ops: run });
      run = [];
      start = op.index;
    }
    run.push(op);
    end = opEnd(op);
  }
  if (run.length > 0) hunks.push({ start, end, ops: run });
  return hunks;
}

function sameLines(x: Hunk, y: Hunk): boolean {
  const a = x.ops.flatMap((op) => op.lines);
  const b = y.ops.flatMap((op) => op.lines);
  return a.length === b.length && a.every((line, k) => line === b[k]);
}

/**
 * Drops every submitted hunk that covers the same base range and yields the same lines as a foreign
 * hunk, however either side split it into ops. Hunks are formed within each list only: a submitted
 * hunk that touches a foreign one is never compared together with it.
 *
 * Hunks of one list are separated by at least one untouched line, so their starts strictly increase
 * and a same-start pair is the only candidate: one merge-like walk finds them all.
 */
function dropChangesAlreadyMade(foreign: readonly NormalizedOp[], submitted: readonly NormalizedOp[]): NormalizedOp[] {
  const theirs = hunksOf(foreign);
  const kept: NormalizedOp[] = [];
  let k = 0;
  for (const hunk of hunksOf(submitted)) {
    let twin = theirs[k];
    while (twin !== undefined && twin.start < hunk.start) twin = theirs[++k];
    const alreadyMade = twin !== undefined && twin.start === hunk.start && twin.end === hunk.end && sameLines(twin, hunk);
    if (!alreadyMade) kept.push(...hunk.ops);
  }
  return kept;
}

function overlap(s: NormalizedOp, f: NormalizedOp): boolean {
  const sEnd = opEnd(s);
  const fEnd = opEnd(f);
  if (s.count > 0 && f.count > 0) return s.index < fEnd && f.index < sEnd;
  if (s.count === 0 && f.count > 0) return f.index < s.index && s.index < fEnd;
  if (f.count === 0 && s.count > 0) return s.index < f.index && f.index < sEnd;
  return false; // two inserts: the foreign lines go first
}

/**
 * Every (submitted, foreign) pair that truly overlaps. Foreign ends never decrease along a valid
 * list, and a foreign op ending at or before a submitted op's start cannot overlap it or any later
 * one, so the window of candidates only moves forward.
 */
function findOverlaps(foreign: readonly NormalizedOp[], submitted: readonly NormalizedOp[]): RebaseOverlap[] {
  const found: RebaseOverlap[] = [];
  let first = 0;
  for (const s of submitted) {
    let skipped = foreign[first];
    while (skipped !== undefined && opEnd(skipped) <= s.index) skipped = foreign[++first];
    for (let k = first, f = foreign[k]; f !== undefined && f.index < opEnd(s); f = foreign[++k]) {
      if (overlap(s, f)) found.push({ submitted: s, foreign: f });
    }
  }
  return found;
}

/**
 * Shifts each submitted op by the line-count change of the foreign ops before it. With no overlap, a
 * foreign op is before a submitted one exactly when it ends at or before the submitted op's start:
 * that single test places an insert at the start of a range before it, one at the end after it, and
 * a foreign insert before a submitted insert at the same index.
 */
function shiftOver(foreign: readonly NormalizedOp[], submitted: readonly NormalizedOp[]): NormalizedOp[] {
  const shifted: NormalizedOp[] = [];
  let k = 0;
  let delta = 0;
  for (const s of submitted) {
    for (let f = foreign[k]; f !== undefined && opEnd(f) <= s.index; f = foreign[++k]) {
      delta += f.lines.length - f.count;
    }
    shifted.push({ index: s.index + delta, count: s.count, lines: s.lines });
  }
  return shifted;
}
