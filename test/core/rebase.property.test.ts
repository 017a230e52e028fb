import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { isCanonical } from "../../src/core/canonical-ops.js";
import { toLineOperation, type NormalizedOp } from "../../src/core/normalized-op.js";
import { rebaseOps, type RebaseOverlap } from "../../src/core/rebase-ops.js";
import { validateOps } from "../../src/core/validate-ops.js";
import { mustApply, opsArb, propertyParams, spliceApply, textArb } from "./property-support.js";

/*
 * An independent model of the rebase rule (docs/line-model.md#rebase-of-a-stale-patch), written the slow and obvious way: every pair is checked,
 * and instead of shifting, both lists are merged into one list against the base, sorted by index
 * with the tie-breaks of the rule (empty ranges first, foreign before submitted), and applied once.
 */

const isChange = (op: NormalizedOp) => op.count > 0 || op.lines.length > 0;

function modelHunks(ops: readonly NormalizedOp[]): { start: number; end: number; lines: string[]; ops: NormalizedOp[] }[] {
  const hunks: { start: number; end: number; lines: string[]; ops: NormalizedOp[] }[] = [];
  for (const op of ops) {
    const last = hunks.at(-1);
    if (last !== undefined && last.end === op.index) {
      last.end = op.index + op.count;
      last.lines.push(...op.lines);
      last.ops.push(op);
    } else {
      hunks.push({ start: op.index, end: op.index + op.count, lines: [...op.lines], ops: [op] });
    }
  }
  return hunks;
}

function modelOverlap(s: NormalizedOp, f: NormalizedOp): boolean {
  const [a, b, c, d] = [s.index, s.index + s.count, f.index, f.index + f.count];
  if (a < b && c < d) return Math.max(a, c) < Math.min(b, d);
  if (a === b && c < d) return c < a && a < d;
  if (c === d && a < b) return a < c && c < b;
  return false;
}

function modelRebase(base: readonly string[], foreign: readonly NormalizedOp[], submitted: readonly NormalizedOp[]) {
  const theirs = foreign.filter(isChange);
  const theirHunks = modelHunks(theirs);
  const ours = modelHunks(submitted.filter(isChange))
    .filter((hunk) => !theirHunks.some((t) => t.start === hunk.start && t.end === hunk.end && JSON.stringify(t.lines) === JSON.stringify(hunk.lines)))
    .flatMap((hunk) => hunk.ops);
  const overlaps: RebaseOverlap[] = [];
  for (const s of ours) for (const f of theirs) if (modelOverlap(s, f)) overlaps.push({ submitted: s, foreign: f });
  if (overlaps.length > 0) return { overlaps };
  const merged = [...theirs.map((op, k) => ({ op, side: 0, k })), ...ours.map((op, k) => ({ op, side: 1, k }))].sort(
    (x, y) => x.op.index - y.op.index || Math.sign(x.op.count) - Math.sign(y.op.count) || x.side - y.side || x.k - y.k,
  );
  return { lines: spliceApply(base, merged.map((entry) => entry.op)) };
}

/** A submitted list that repeats some foreign hunks, each split at its own random point. */
function repeatArb(foreign: readonly NormalizedOp[]): fc.Arbitrary<NormalizedOp[]> {
  const hunks = modelHunks(foreign.filter(isChange));
  return fc.array(fc.tuple(fc.boolean(), fc.nat(), fc.nat()), { minLength: hunks.length, maxLength: hunks.length }).map((choices) =>
    hunks.flatMap((hunk, k) => {
      const [take, countCut, linesCut] = choices[k] ?? [false, 0, 0];
      if (!take) return [];
      const count = hunk.end - hunk.start;
      const c = countCut % (count + 1);
      const l = linesCut % (hunk.lines.length + 1);
      return [
        { index: hunk.start, count: c, lines: hunk.lines.slice(0, l) },
        { index: hunk.start + c, count: count - c, lines: hunk.lines.slice(l) },
      ].filter(isChange);
    }),
  );
}

const caseArb = textArb.chain((base) =>
  opsArb(base.length).chain((foreign) =>
    fc.oneof(opsArb(base.length), repeatArb(foreign)).map((submitted) => ({ base, foreign, submitted })),
  ),
);

describe("rebaseOps, for random texts and ops", () => {
  it("an accepted rebase gives valid canonical ops whose text is the model's, and a refused one the model's overlaps", () => {
    fc.assert(
      fc.property(caseArb, ({ base, foreign, submitted }) => {
        const model = modelRebase(base, foreign, submitted);
        const rebased = rebaseOps(foreign, submitted);
        if (!rebased.ok) {
          expect(rebased.overlaps).toEqual(model.overlaps);
          return;
        }
        expect(model.overlaps).toBeUndefined();
        expect(isCanonical(rebased.ops)).toEqual(true);
        expect(validateOps(rebased.ops.map(toLineOperation))).toEqual({ ok: true, ops: rebased.ops });
        expect(applyOps(mustApply(base, foreign), rebased.ops)).toEqual({ ok: true, lines: model.lines });
      }),
      propertyParams(1000),
    );
  });

  it("rebasing either side over the other gives one text, except for inserts of both sides at one index", () => {
    // The rule is symmetric but for one tie-break: when both sides insert at one index the foreign
    // lines come first, so swapping the roles swaps those lines. Cases with such a pair are skipped.
    fc.assert(
      fc.property(caseArb, ({ base, foreign, submitted }) => {
        const inserts = (ops: readonly NormalizedOp[]) => new Set(ops.filter((op) => op.count === 0 && op.lines.length > 0).map((op) => op.index));
        const theirInserts = inserts(foreign);
        if ([...inserts(submitted)].some((index) => theirInserts.has(index))) return;
        const forward = rebaseOps(foreign, submitted);
        const backward = rebaseOps(submitted, foreign);
        expect(backward.ok).toEqual(forward.ok);
        if (!forward.ok || !backward.ok) return;
        expect(applyOps(mustApply(base, foreign), forward.ops)).toEqual(applyOps(mustApply(base, submitted), backward.ops));
      }),
      propertyParams(1000),
    );
  });

  it("rebasing over no foreign op keeps the effect of the submitted ops", () => {
    const arb = textArb.chain((base) => opsArb(base.length).map((submitted) => ({ base, submitted })));
    fc.assert(
      fc.property(arb, ({ base, submitted }) => {
        const rebased = rebaseOps([], submitted);
        expect(rebased.ok).toEqual(true);
        if (rebased.ok) expect(applyOps(base, rebased.ops)).toEqual(applyOps(base, submitted));
      }),
      propertyParams(300),
    );
  });
});
