import fc from "fast-check";
import { applyOps } from "../../src/core/apply-ops.js";
import type { LineOperation } from "../../src/core/line-operation.js";
import type { NormalizedOp } from "../../src/core/normalized-op.js";

/**
 * Parameters for fc.assert. fast-check prints the seed and the counterexample of a failing run;
 * FOLIO_SEED=<seed> replays it (with FOLIO_PATH=<path> from the same report, straight to the
 * shrunk case).
 */
export function propertyParams(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env.FOLIO_SEED;
  const path = process.env.FOLIO_PATH;
  return {
    numRuns,
    ...(seed !== undefined && seed !== "" ? { seed: Number(seed) } : {}),
    ...(path !== undefined && path !== "" ? { path } : {}),
  };
}

/** Few distinct lines, so that texts repeat lines and diffs have choices to make. */
export const lineArb = fc.constantFrom("a", "b", "c", "d", "");

export const textArb = fc.array(lineArb, { maxLength: 12 });

/** How {@link opsArb} shapes its lists: the defaults give short lists of every shape. */
export interface OpsShape {
  minGap?: number;
  maxGap?: number;
  maxCount?: number;
  maxLines?: number;
  minOps?: number;
  maxOps?: number;
}

/**
 * A valid normalized op list against a text of `n` lines, with every shape the type allows:
 * inserts, deletes, replaces, no-ops, touching ops and several empty-range ops at one index
 * (a `minGap` of 1 keeps ops from touching).
 */
export function opsArb(n: number, shape: OpsShape = {}): fc.Arbitrary<NormalizedOp[]> {
  const { minGap = 0, maxGap = 3, maxCount = 3, maxLines = 3, minOps = 0, maxOps = 5 } = shape;
  const opSpecArb = fc.record({
    gap: fc.integer({ min: minGap, max: maxGap }),
    count: fc.nat({ max: maxCount }),
    lines: fc.array(lineArb, { maxLength: maxLines }),
  });
  return fc.array(opSpecArb, { minLength: minOps, maxLength: maxOps }).map((specs) => {
    const ops: NormalizedOp[] = [];
    let cursor = 0;
    for (const spec of specs) {
      const index = cursor + spec.gap;
      if (index > n) break;
      const count = Math.min(spec.count, n - index);
      ops.push({ index, count, lines: spec.lines });
      cursor = index + count;
    }
    return ops;
  });
}

const wireSpecArb = fc.record({
  gap: fc.nat({ max: 3 }),
  kind: fc.constantFrom("insert", "replace", "delete"),
  count: fc.nat({ max: 3 }),
  lines: fc.array(lineArb, { maxLength: 3 }),
  ignoredField: fc.boolean(),
});

/**
 * A wire op list that follows every rule of docs/line-model.md#a-valid-list against a text of `n` lines. Sometimes it
 * carries the fields a kind ignores (an insert's count, a delete's lines with a line break in them).
 */
export function wireOpsArb(n: number): fc.Arbitrary<LineOperation[]> {
  return fc.array(wireSpecArb, { maxLength: 6 }).map((specs) => {
    const ops: LineOperation[] = [];
    let cursor = 0;
    let previousIndex = -1;
    for (const spec of specs) {
      const index = cursor + spec.gap;
      if (index > n) break;
      // At most one insert at an index, before anything else starting there.
      const kind = spec.kind === "insert" && previousIndex === index ? "replace" : spec.kind;
      const count = Math.min(spec.count, n - index);
      if (kind === "insert") {
        ops.push({ op: "insert", index, lines: spec.lines, ...(spec.ignoredField ? { count: spec.count } : {}) });
        cursor = index;
      } else if (kind === "replace") {
        ops.push({ op: "replace", index, count, lines: spec.lines });
        cursor = index + count;
      } else {
        ops.push({ op: "delete", index, count, ...(spec.ignoredField ? { lines: ["ignored\n"] } : {}) });
        cursor = index + count;
      }
      previousIndex = index;
    }
    return ops;
  });
}

/** applyOps for ops known to fit: a misfit is a bug in the generator, so it throws. */
export function mustApply(lines: readonly string[], ops: readonly NormalizedOp[]): string[] {
  const result = applyOps(lines, ops);
  if (!result.ok) throw new Error(`generated ops do not apply: ${result.message}`);
  return result.lines;
}

/** An independent model of applying a valid list: splice from the last op to the first. */
export function spliceApply(lines: readonly string[], ops: readonly NormalizedOp[]): string[] {
  const out = [...lines];
  for (const op of [...ops].reverse()) out.splice(op.index, op.count, ...op.lines);
  return out;
}
