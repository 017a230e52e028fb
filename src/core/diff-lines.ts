import { diffArrays } from "diff";
import { OpsBuilder } from "./ops-builder.js";
import type { NormalizedOp } from "./normalized-op.js";

/** Options of {@link diffLines}. */
export interface DiffLinesOptions {
  /**
   * Largest edit distance (lines taken out plus lines put in) searched for between the changed middle
   * parts; past it the middle becomes one replace: still correct, only coarser. The default keeps
   * the O((N + M) · D) cost of the search near {@link DIFF_WORK_BUDGET} steps, between 64 and 2000
   * edits, so a 5 MiB text that changed everywhere cannot block the caller for seconds.
   */
  readonly maxEditLength?: number;
  /**
   * The (N + M) · D steps the default edit-length bound aims at, instead of {@link DIFF_WORK_BUDGET}:
   * the service, which diffs on the event loop every other request waits on, asks for less.
   */
  readonly workBudget?: number;
}

/** Roughly (N + M) · D for the default edit-length bound: about a tenth of a second of diffing. */
const DIFF_WORK_BUDGET = 20_000_000;

function defaultMaxEditLength(size: number, budget = DIFF_WORK_BUDGET): number {
  return Math.max(64, Math.min(2000, Math.floor(budget / size)));
}

/**
 * The ops that turn `before` into `after`, in canonical form (see canonicalOps), found with jsdiff's
 * line diff. The common prefix and suffix are cut off first, so a one-line change in a long text
 * costs one linear scan. Deterministic: the bound is an edit length, never a timeout.
 */
export function diffLines(before: readonly string[], after: readonly string[], options: DiffLinesOptions = {}): NormalizedOp[] {
  let prefix = 0;
  const shorter = Math.min(before.length, after.length);
  while (prefix < shorter && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;

  const oldMiddle = before.slice(prefix, before.length - suffix);
  const newMiddle = after.slice(prefix, after.length - suffix);
  const out = new OpsBuilder();
  out.keep(prefix);
  if (oldMiddle.length === 0 || newMiddle.length === 0) {
    out.remove(oldMiddle.length);
    out.add(newMiddle);
    return out.finish();
  }
  const changes = diffArrays(oldMiddle, newMiddle, {
    maxEditLength: options.maxEditLength ?? defaultMaxEditLength(oldMiddle.length + newMiddle.length, options.workBudget),
  });
  if (changes === undefined) {
    out.remove(oldMiddle.length);
    out.add(newMiddle);
    return out.finish();
  }
  for (const change of changes) {
    if (change.added) out.add(change.value);
    else if (change.removed) out.remove(change.count);
    else out.keep(change.count);
  }
  return out.finish();
}
