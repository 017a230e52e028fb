import type { LineOperation } from "./line-operation.js";

/**
 * One line operation in the single shape the algebra works on: base lines `[index, index + count)` are
 * replaced by `lines`. An insert has `count` 0, a delete has no `lines`; an op with neither is a no-op.
 *
 * A list of them is valid when sorted by `index` with every op starting at or after the end of the op
 * before it; several empty-range ops at one index apply in list order.
 */
export interface NormalizedOp {
  readonly index: number;
  readonly count: number;
  readonly lines: readonly string[];
}

/** The outcome of {@link normalizeOp}; `message` names the missing or bad field, without a position. */
export type NormalizeOpResult = { ok: true; op: NormalizedOp } | { ok: false; message: string };

/** Index one past the last base line the op covers (its own index for an insert). */
export function opEnd(op: NormalizedOp): number {
  return op.index + op.count;
}

/** True when the op changes nothing: no base line taken out, no line put in. */
export function isNoOp(op: NormalizedOp): boolean {
  return op.count === 0 && op.lines.length === 0;
}

function isLineCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/**
 * Converts a wire op to a {@link NormalizedOp} after checking the fields its kind requires
 * (docs/line-model.md#line-operations): an insert needs `lines`, a replace `count` and `lines`, a delete `count`. The fields a
 * kind ignores (an insert's `count`, a delete's `lines`) are ignored here too, not checked. Line
 * content is not checked here: see validateOps.
 */
export function normalizeOp(op: LineOperation): NormalizeOpResult {
  if (!isLineCount(op.index)) return { ok: false, message: "index must be an integer of at least 0" };
  const needsCount = op.op !== "insert";
  const needsLines = op.op !== "delete";
  if (needsCount && op.count === undefined) return { ok: false, message: `a ${op.op} needs count` };
  if (needsLines && op.lines === undefined) return { ok: false, message: `${op.op === "insert" ? "an insert" : "a replace"} needs lines` };
  const count = needsCount ? (op.count ?? 0) : 0;
  if (!isLineCount(count)) return { ok: false, message: "count must be an integer of at least 0" };
  const lines = needsLines ? (op.lines ?? []) : [];
  return { ok: true, op: { index: op.index, count, lines } };
}

/**
 * The canonical wire form of an op: an insert when it takes no base line, a delete when it puts no
 * line in, a replace otherwise (a no-op too). Keys the kind does not use are left out, never undefined.
 * A canonical list (see canonicalOps) converts to a valid wire list; any other may not: an insert
 * and an empty replace at one index would become two inserts there.
 */
export function toLineOperation(op: NormalizedOp): LineOperation {
  if (op.count === 0 && op.lines.length > 0) return { op: "insert", index: op.index, lines: [...op.lines] };
  if (op.lines.length === 0 && op.count > 0) return { op: "delete", index: op.index, count: op.count };
  return { op: "replace", index: op.index, count: op.count, lines: [...op.lines] };
}
