import { applyOps } from "./apply-ops.js";
import { diffLines } from "./diff-lines.js";
import { opEnd, type NormalizedOp } from "./normalized-op.js";
import { rebaseOps, type RebaseOverlap } from "./rebase-ops.js";

/**
 * How one level of the three-way merge (lines, words or characters; see merge-text.ts) settles
 * what the rebase of the two sides leaves contested.
 */
export interface MergeLevel {
  /** One contested region: its base items and the two sides' versions of them, each non-empty. */
  resolve(base: string[], theirs: string[], mine: string[]): string[];
  /**
   * Lines: a deletion gives way, line by line, to a change the other side made to the same lines
   * (the changed line stays). Words and characters: such a pair is contested like any other.
   */
  readonly deletionsYield: boolean;
  /**
   * What both sides replaced the same way: merged one level finer (lines: a blank both typed at
   * the end of one line is two blanks, as two inserted words), or counted once (words: both fixed
   * "teh" to "the").
   */
  readonly sameChange: "finer" | "once";
  /** How each side is diffed against the base: diffLines unless this says otherwise (words: diffWeighted). */
  readonly diff?: (before: readonly string[], after: readonly string[]) => NormalizedOp[];
}

/**
 * The three-way merge of one level (docs/line-model.md#merging-inside-lines). `theirs` (the
 * service's side) and `mine` (the local side) are each diffed against `base`, and the two op lists
 * are combined by the service's rebase rule (rebaseOps): what does not overlap is kept with its
 * placement rules (an insert at the start of a range before it, at its end after it, two inserts
 * at one point theirs first). What both sides did the same way: items both put in at one point
 * are kept twice (two people typed them), items both deleted are deleted once, and items both
 * replaced the same way go by `level.sameChange`. Each group of ops that do overlap becomes one
 * contested region, which `level.resolve` merges one level finer. The answer is a function of the
 * three lists alone.
 */
export function mergeItems(base: readonly string[], theirs: readonly string[], mine: readonly string[], level: MergeLevel): string[] {
  if (same(base, mine)) return [...theirs];
  if (same(base, theirs)) return [...mine];
  const diff = level.diff ?? diffLines;
  const theirsOps = diff(base, theirs);
  const mineOps = diff(base, mine);
  const settled = settleDeletions(theirsOps, mineOps, level.deletionsYield);
  // Items both sides delete are deleted by the service's side only, so that no two deletions overlap.
  const [foreign, local] = madeTwice(base, settled, withoutDeleted(settleDeletions(mineOps, theirsOps, level.deletionsYield), settled), level);
  const rebased = rebaseOps(foreign, local);
  if (rebased.ok) return mustApply(mustApply(base, foreign), rebased.ops);

  const regions = contestedRegions(theirsOps, mineOps, rebased.overlaps);
  const inside = (op: NormalizedOp) => regions.some((region) => within(op, region));
  // A contested region is merged from what each side really made of it, deletions and all.
  const resolved = regions.map((region) => {
    const slice = base.slice(region.start, region.end);
    const version = (ops: readonly NormalizedOp[]) =>
      mustApply(
        slice,
        ops.filter((op) => within(op, region)).map((op) => ({ index: op.index - region.start, count: op.count, lines: op.lines })),
      );
    return { index: region.start, count: region.end - region.start, lines: level.resolve(slice, version(theirsOps), version(mineOps)) };
  });
  // Not canonicalized: that would join the pieces of a deletion cut around an insert of the other side.
  const merged = [...foreign.filter((op) => !inside(op)), ...resolved].sort(byPosition);
  const rest = rebaseOps(merged, local.filter((op) => !inside(op)));
  // Not reachable: an op left outside every region ends before it or starts after it (docs/line-model.md).
  if (!rest.ok) return level.resolve([...base], [...theirs], [...mine]);
  return mustApply(mustApply(base, merged), rest.ops);
}

function same(x: readonly string[], y: readonly string[]): boolean {
  return x.length === y.length && x.every((item, k) => item === y[k]);
}

function mustApply(items: readonly string[], ops: readonly NormalizedOp[]): string[] {
  const applied = applyOps(items, ops);
  if (!applied.ok) throw new Error(`merge: ops that do not fit their own text (${applied.message})`);
  return applied.lines;
}

const isDeletion = (op: NormalizedOp) => op.count > 0 && op.lines.length === 0;

/** At one index an insert (count 0) comes first; one side never has two other ops starting at one index. */
function byPosition(x: NormalizedOp, y: NormalizedOp): number {
  return x.index - y.index || x.count - y.count;
}

/**
 * `side`'s deletions, cut where `other` inserts strictly inside one (the insert stays, between the
 * two pieces) and, with `yieldToChanges`, without the items `other` replaced (its change stays).
 * Every other op is kept as it is.
 */
function settleDeletions(side: readonly NormalizedOp[], other: readonly NormalizedOp[], yieldToChanges: boolean): NormalizedOp[] {
  const changes = other.filter((op) => !isDeletion(op));
  const out = side.filter((op) => !isDeletion(op));
  let first = 0;
  for (const op of side.filter(isDeletion)) {
    // Both lists are sorted: a change ending at or before this deletion ends before every later one.
    while (first < changes.length && opEnd(changes[first]!) <= op.index) first++;
    const met: NormalizedOp[] = [];
    for (let k = first; k < changes.length && changes[k]!.index < opEnd(op); k++) met.push(changes[k]!);
    let run = -1;
    for (let index = op.index; index <= opEnd(op); index++) {
      const cut = met.some((change) => change.count === 0 && change.index === index);
      const keep = index < opEnd(op) && !(yieldToChanges && met.some((change) => change.index <= index && index < opEnd(change)));
      if (run >= 0 && (cut || !keep)) {
        out.push({ index: run, count: index - run, lines: [] });
        run = -1;
      }
      if (keep && run < 0) run = index;
    }
  }
  return out.sort(byPosition);
}

/**
 * The ops `local` has exactly like `foreign` (same range, same items), taken out of `local` and
 * settled in `foreign`: an insert made twice puts its items in twice (the service's first), a
 * replacement made twice goes by `level.sameChange`.
 */
function madeTwice(base: readonly string[], foreign: NormalizedOp[], local: NormalizedOp[], level: MergeLevel): [NormalizedOp[], NormalizedOp[]] {
  const key = (op: NormalizedOp) => JSON.stringify([op.index, op.count, op.lines]);
  const twins = new Set(local.map(key));
  const made = new Set<string>();
  const settled = foreign.map((op) => {
    if (!twins.has(key(op))) return op;
    made.add(key(op));
    if (op.count === 0) return { ...op, lines: [...op.lines, ...op.lines] };
    if (level.sameChange === "once") return op;
    const lines = [...op.lines];
    return { ...op, lines: level.resolve(base.slice(op.index, opEnd(op)), lines, [...lines]) };
  });
  return [settled, local.filter((op) => !made.has(key(op)))];
}

/** `ops` without the items that `done`'s deletions take out already. */
function withoutDeleted(ops: readonly NormalizedOp[], done: readonly NormalizedOp[]): NormalizedOp[] {
  const deleted = done.filter(isDeletion);
  const out: NormalizedOp[] = [];
  for (const op of ops) {
    if (!isDeletion(op)) {
      out.push(op);
      continue;
    }
    let run = -1;
    for (let index = op.index; index <= opEnd(op); index++) {
      const keep = index < opEnd(op) && !deleted.some((d) => d.index <= index && index < opEnd(d));
      if (!keep && run >= 0) out.push({ index: run, count: index - run, lines: [] });
      if (!keep) run = -1;
      else if (run < 0) run = index;
    }
  }
  return out.sort(byPosition);
}

interface Region {
  start: number;
  end: number;
}

/** True when `op` lies in the region: a range inside it, or an insert strictly inside it. */
function within(op: NormalizedOp, region: Region): boolean {
  return op.count > 0 ? region.start <= op.index && opEnd(op) <= region.end : region.start < op.index && op.index < region.end;
}

/**
 * The base ranges to merge one level finer: every group of the two sides' ops (as diffed, before
 * their deletions were settled) whose ranges share items, or where one inserts strictly inside the
 * other's range, that holds an overlap the rebase found. One sweep in the order of the ops; a region
 * covers every op that reaches into it, so every op, and every piece of a settled deletion, is
 * either in one region or wholly outside all of them.
 */
function contestedRegions(theirs: readonly NormalizedOp[], mine: readonly NormalizedOp[], overlaps: readonly RebaseOverlap[]): Region[] {
  const regions: Region[] = [];
  for (const op of [...theirs, ...mine].sort(byPosition)) {
    const last = regions.at(-1);
    const reaches = last !== undefined && (op.count > 0 ? op.index < last.end : last.start < op.index && op.index < last.end);
    if (reaches) last.end = Math.max(last.end, opEnd(op));
    else regions.push({ start: op.index, end: opEnd(op) });
  }
  return regions.filter((region) => overlaps.some((pair) => within(pair.foreign, region)));
}
