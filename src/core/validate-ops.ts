import type { LineOperation } from "./line-operation.js";
import { normalizeOp, opEnd, type NormalizedOp } from "./normalized-op.js";

/** The outcome of {@link validateOps}: the ops in normalized form, or the first rule broken. */
export type ValidateOpsResult = { ok: true; ops: NormalizedOp[] } | { ok: false; message: string };

/**
 * Checks a list of wire ops against the 400 rules of docs/line-model.md#a-valid-list and normalizes it:
 * each op has the fields its kind needs; no line of an insert or replace contains "\n" or "\r"; the
 * list is sorted by index with every op ending at or before the next one's start; at most one insert
 * at an index, and it comes before a replace or delete starting there.
 *
 * The range against the text is not checked here (that is applyOps, a 422), and an empty list is
 * valid: whether an empty patch is allowed depends on `milestone`, which the caller knows.
 */
export function validateOps(ops: readonly LineOperation[]): ValidateOpsResult {
  const normalized: NormalizedOp[] = [];
  let previous: { op: LineOperation; at: number } | undefined;
  let previousEnd = 0;
  let lastInsertIndex = -1;
  for (const [at, op] of ops.entries()) {
    const result = normalizeOp(op);
    if (!result.ok) return fail(at, result.message);
    const current = result.op;
    const badLine = current.lines.findIndex((line) => line.includes("\n") || line.includes("\r"));
    if (badLine >= 0) return fail(at, `a line must not contain \\n or \\r, and lines[${badLine}] does`);
    if (previous !== undefined) {
      const order = orderProblem(op, current, previous, previousEnd, lastInsertIndex);
      if (order !== undefined) return fail(at, order);
    }
    if (op.op === "insert") lastInsertIndex = current.index;
    previous = { op, at };
    previousEnd = opEnd(current);
    normalized.push(current);
  }
  return { ok: true, ops: normalized };
}

function orderProblem(
  op: LineOperation,
  current: NormalizedOp,
  previous: { op: LineOperation; at: number },
  previousEnd: number,
  lastInsertIndex: number,
): string | undefined {
  const before = `ops[${previous.at}]`;
  if (current.index < previous.op.index) {
    return `index ${current.index} is less than index ${previous.op.index} of ${before}; ops must be sorted by index`;
  }
  if (current.index < previousEnd) {
    return `starts at line ${current.index}, inside the range of ${before}, which ends at line ${previousEnd}; ops must not overlap`;
  }
  if (op.op !== "insert" || current.index !== previous.op.index) return undefined;
  if (lastInsertIndex === current.index) {
    return `a second insert at index ${current.index}; at most one insert is allowed at an index`;
  }
  return `an insert at index ${current.index} must come before the ${previous.op.op} starting there (${before}), not after it`;
}

function fail(at: number, message: string): ValidateOpsResult {
  return { ok: false, message: `ops[${at}]: ${message}` };
}
