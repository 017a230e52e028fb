import { OpsBuilder } from "./ops-builder.js";
import type { NormalizedOp } from "./normalized-op.js";

/**
 * The canonical form of a valid op list, the one composeOps, diffLines and rebaseOps return: sorted,
 * every op separated from the next by at least one untouched base line (ops whose ranges touch or
 * share an index are merged into one op, a "hunk"), and no no-op. It applies to the same text as the
 * input. It is not minimal: an op that rewrites a line with the same content stays (see minimizeOps).
 */
export function canonicalOps(ops: readonly NormalizedOp[]): NormalizedOp[] {
  const builder = new OpsBuilder();
  let cursor = 0;
  for (const op of ops) {
    builder.keep(op.index - cursor);
    builder.remove(op.count);
    builder.addShared(op.lines);
    cursor = op.index + op.count;
  }
  return builder.finish();
}

/** True when the list is in the form {@link canonicalOps} returns. */
export function isCanonical(ops: readonly NormalizedOp[]): boolean {
  let previousEnd = -1;
  for (const op of ops) {
    if (op.count === 0 && op.lines.length === 0) return false;
    if (op.index <= previousEnd) return false;
    previousEnd = op.index + op.count;
  }
  return true;
}
