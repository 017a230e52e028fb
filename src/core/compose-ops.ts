import { canonicalOps, isCanonical } from "./canonical-ops.js";
import { OpsBuilder } from "./ops-builder.js";
import type { NormalizedOp } from "./normalized-op.js";

/**
 * A list of ops seen as a walk over its base text: keep n lines, take n lines out, put lines in. The
 * text after the last op is an endless keep, so composing never needs the text or its length.
 */
type Step =
  | { readonly kind: "keep"; readonly n: number }
  | { readonly kind: "remove"; readonly n: number }
  | { readonly kind: "add"; readonly n: number; readonly lines: readonly string[] };

const KEEP_REST: Step = { kind: "keep", n: Number.POSITIVE_INFINITY };

function toSteps(ops: readonly NormalizedOp[]): Step[] {
  const steps: Step[] = [];
  let cursor = 0;
  for (const op of ops) {
    if (op.index > cursor) steps.push({ kind: "keep", n: op.index - cursor });
    if (op.count > 0) steps.push({ kind: "remove", n: op.count });
    if (op.lines.length > 0) steps.push({ kind: "add", n: op.lines.length, lines: op.lines });
    cursor = op.index + op.count;
  }
  return steps;
}

/**
 * Composes two valid op lists: `first` against a text T0, `second` against T1 = apply(first, T0). The
 * result is against T0 and applies to every T0 that `first` applies to, giving
 * apply(second, apply(first, T0)). It is in canonical form (see canonicalOps). Its ops may share
 * lines arrays, and ops, with those of its inputs (both are read-only; copy them before changing them).
 *
 * Cost: linear in the number of ops and the lines they put in; the text is never looked at. When
 * `first` is canonical and several times longer than `second` (a long composition extended by a few
 * versions), only the ops of `first` near an op of `second` are walked (see {@link composeSparse}).
 */
export function composeOps(first: readonly NormalizedOp[], second: readonly NormalizedOp[]): NormalizedOp[] {
  const uneven = second.length * SPARSE_RATIO <= first.length || first.length * SPARSE_RATIO <= second.length;
  if (uneven && isCanonical(first)) return composeSparse(first, second);
  return composeByWalk(first, second);
}

/** One list at least this many times longer than the other takes the sparse path. */
const SPARSE_RATIO = 4;

/**
 * {@link composeOps} for a canonical `first`: the same result, made of the ops that no op of the other
 * list comes near, and of the walk of each cluster of ops that do. A cluster gathers, in T1, the ops
 * of `second` and the outputs of the ops of `first` whose closed ranges touch one another; between two
 * clusters lies at least one line of T1 that neither list touches, so it is a kept line of T0 that
 * separates the ops of the result as the canonical form wants, and the walk of a cluster on its own
 * makes exactly the ops that the walk of the whole lists makes there. An op of `first` outside every
 * cluster is taken over as it is (the very object: it keeps its place in T0); an op of `second` alone
 * in its cluster is moved back to T0 by the change in length of the ops of `first` before it. So
 * composing a long list with a short one, either way round, costs little beyond copying the long one.
 * Exported for the tests that compare it with {@link composeByWalk}.
 */
export function composeSparse(first: readonly NormalizedOp[], second: readonly NormalizedOp[]): NormalizedOp[] {
  const out: NormalizedOp[] = [];
  let i = 0;
  let j = 0;
  // The change in length that the ops of `first` before `first[i]` make: T1 position = T0 index + delta.
  let delta = 0;
  while (j < second.length) {
    const start = second[j]!.index;
    // The ops of `first` whose output ends before the cluster begins pass through.
    while (i < first.length && first[i]!.index + delta + first[i]!.lines.length < start) {
      out.push(first[i]!);
      delta += first[i]!.lines.length - first[i]!.count;
      i++;
    }
    const firstFrom = i;
    const secondFrom = j;
    const deltaBefore = delta;
    let end = start;
    for (let grew = true; grew; ) {
      grew = false;
      while (j < second.length && second[j]!.index <= end) {
        end = Math.max(end, second[j]!.index + second[j]!.count);
        j++;
        grew = true;
      }
      while (i < first.length && first[i]!.index + delta <= end) {
        end = Math.max(end, first[i]!.index + delta + first[i]!.lines.length);
        delta += first[i]!.lines.length - first[i]!.count;
        i++;
        grew = true;
      }
    }
    if (i === firstFrom && j === secondFrom + 1) {
      // One op of `second` near nothing: itself, moved to T0 (a no-op leaves nothing, as in the walk).
      const op = second[secondFrom]!;
      if (op.count > 0 || op.lines.length > 0) out.push(deltaBefore === 0 ? op : { index: op.index - deltaBefore, count: op.count, lines: op.lines });
      continue;
    }
    // The cluster's ops of `second`, moved to the text that the cluster's ops of `first` alone make.
    const moved = second.slice(secondFrom, j).map((op) => ({ index: op.index - deltaBefore, count: op.count, lines: op.lines }));
    for (const op of composeByWalk(first.slice(firstFrom, i), moved)) out.push(op);
  }
  while (i < first.length) out.push(first[i++]!);
  return out;
}

/** {@link composeOps} by a walk over both lists whole: any valid lists. Exported for the tests. */
export function composeByWalk(first: readonly NormalizedOp[], second: readonly NormalizedOp[]): NormalizedOp[] {
  const a = toSteps(first);
  const b = toSteps(second);
  const out = new OpsBuilder();
  // The walk reads T1 twice at once: as the output of `first` (a) and as the input of `second` (b).
  // aUsed and bUsed count how much of the current step of each side is consumed already.
  let i = 0;
  let j = 0;
  let aUsed = 0;
  let bUsed = 0;
  for (;;) {
    const stepA = a[i] ?? KEEP_REST;
    const stepB = b[j] ?? KEEP_REST;
    if (stepA === KEEP_REST && stepB === KEEP_REST) break;
    // Lines `first` took out never reach T1, and lines `second` puts in come from no T1 line:
    // both pass straight through.
    if (stepA.kind === "remove") {
      out.remove(stepA.n);
      i++;
      aUsed = 0;
      continue;
    }
    if (stepB.kind === "add") {
      out.addShared(stepB.lines, bUsed, stepB.n);
      j++;
      bUsed = 0;
      continue;
    }
    const n = Math.min(stepA.n - aUsed, stepB.n - bUsed);
    if (stepA.kind === "keep") {
      if (stepB.kind === "keep") out.keep(n);
      else out.remove(n);
    } else if (stepB.kind === "keep") {
      out.addShared(stepA.lines, aUsed, aUsed + n);
    } // else: put in by `first`, taken out by `second`: leaves no trace.
    aUsed += n;
    bUsed += n;
    if (aUsed === stepA.n) {
      i++;
      aUsed = 0;
    }
    if (bUsed === stepB.n) {
      j++;
      bUsed = 0;
    }
  }
  return out.finish();
}

/**
 * Composes a chain of op lists, each against the text the previous ones produce, into one list
 * against the first text, in canonical form. An empty chain gives `[]`.
 *
 * Pairs are composed level by level (a balanced tree) rather than folded left to right: folding k
 * one-op lists into a growing result costs O(k²), the tree O(total ops × log k). A chain that starts
 * with a list at least as long as all the others together (a composition kept for a base, extended
 * by the versions since: src/service/caches/foreign-ops.ts) composes the others first, so that the long
 * list is walked once instead of once per level of the tree. The grouping does not change the
 * result (composition is associative and its result canonical: test/core/compose-ops.test.ts).
 */
export function composeChain(list: readonly (readonly NormalizedOp[])[]): NormalizedOp[] {
  if (list.length > 2) {
    const first = list[0]!;
    let others = 0;
    for (let k = 1; k < list.length; k++) others += list[k]!.length;
    if (first.length >= others) return composeOps(first, composeTree(list.slice(1)));
  }
  return composeTree(list);
}

function composeTree(list: readonly (readonly NormalizedOp[])[]): NormalizedOp[] {
  let level: (readonly NormalizedOp[])[] = [...list];
  if (level.length === 0) return [];
  while (level.length > 1) {
    const next: NormalizedOp[][] = [];
    for (let k = 0; k < level.length; k += 2) {
      const left = level[k] ?? [];
      const right = level[k + 1];
      next.push(right === undefined ? canonicalOps(left) : composeOps(left, right));
    }
    level = next;
  }
  // A composition is in canonical form already; only a chain of one list is not composed at all.
  return list.length === 1 ? canonicalOps(level[0] ?? []) : (level[0] as NormalizedOp[]);
}
