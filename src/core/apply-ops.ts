import type { NormalizedOp } from "./normalized-op.js";

/** The outcome of {@link applyOps}: the new lines, or why the ops do not fit the text. */
export type ApplyOpsResult = { ok: true; lines: string[] } | { ok: false; message: string };

/**
 * Applies a valid op list (see NormalizedOp) to the lines of a text. An op whose index or range
 * lies outside the text gives `ok: false` (the HTTP layer answers 422); so does a list that is not
 * sorted, as a guard, although validateOps has rejected those already. An insert at
 * `index === lines.length` appends.
 *
 * One pass in O(lines + size of ops): the result is built left to right, never spliced.
 */
export function applyOps(lines: readonly string[], ops: readonly NormalizedOp[]): ApplyOpsResult {
  const out: string[] = [];
  let cursor = 0;
  for (const [at, op] of ops.entries()) {
    const end = op.index + op.count;
    if (op.index < cursor) {
      return { ok: false, message: `ops[${at}]: starts at line ${op.index}, before the previous op ends at line ${cursor}` };
    }
    if (op.index > lines.length) {
      return { ok: false, message: `ops[${at}]: index ${op.index} is outside the text, which has ${lines.length} lines` };
    }
    if (end > lines.length) {
      return {
        ok: false,
        message: `ops[${at}]: the range [${op.index}, ${end}) reaches past the end of the text, which has ${lines.length} lines`,
      };
    }
    copyRange(lines, cursor, op.index, out);
    copyRange(op.lines, 0, op.lines.length, out);
    cursor = end;
  }
  copyRange(lines, cursor, lines.length, out);
  return { ok: true, lines: out };
}

function copyRange(from: readonly string[], start: number, end: number, into: string[]): void {
  // end <= from.length here, so the fallback never applies; it only satisfies noUncheckedIndexedAccess.
  for (let k = start; k < end; k++) into.push(from[k] ?? "");
}
