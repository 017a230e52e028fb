import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { canonicalOps, isCanonical } from "../../src/core/canonical-ops.js";
import { composeByWalk, composeChain, composeOps, composeSparse } from "../../src/core/compose-ops.js";
import { diffLines } from "../../src/core/diff-lines.js";
import type { NormalizedOp } from "../../src/core/normalized-op.js";
import { lineArb, mustApply, opsArb, propertyParams, textArb } from "./property-support.js";

/** A chain of `k` op lists, each against the text the ones before it produce from `text`. */
function chainArb(text: readonly string[], k: number): fc.Arbitrary<NormalizedOp[][]> {
  if (k === 0) return fc.constant([]);
  return opsArb(text.length).chain((ops) => chainArb(mustApply(text, ops), k - 1).map((rest) => [ops, ...rest]));
}

describe("compose, canonical form and diff, for random texts and ops", () => {
  it("applying a composition equals applying its two lists one after the other", () => {
    const arb = textArb.chain((text) =>
      opsArb(text.length).chain((first) => opsArb(mustApply(text, first).length).map((second) => ({ text, first, second }))),
    );
    fc.assert(
      fc.property(arb, ({ text, first, second }) => {
        const composed = composeOps(first, second);
        expect(isCanonical(composed)).toEqual(true);
        expect(applyOps(text, composed)).toEqual({ ok: true, lines: mustApply(mustApply(text, first), second) });
      }),
      propertyParams(1000),
    );
  });

  it("a composition applies the same way to every text of the same length", () => {
    // composeOps never sees the text, so it cannot depend on it: one composition, several texts.
    const arb = fc.nat({ max: 10 }).chain((n) => {
      const textOfLength = fc.array(lineArb, { minLength: n, maxLength: n });
      return fc.tuple(fc.array(textOfLength, { minLength: 1, maxLength: 3 }), opsArb(n)).chain(([texts, first]) => {
        const t1Length = n + first.reduce((change, op) => change + op.lines.length - op.count, 0);
        return opsArb(t1Length).map((second) => ({ texts, first, second }));
      });
    });
    fc.assert(
      fc.property(arb, ({ texts, first, second }) => {
        const composed = composeOps(first, second);
        for (const text of texts) {
          expect(applyOps(text, composed)).toEqual({ ok: true, lines: mustApply(mustApply(text, first), second) });
        }
      }),
      propertyParams(300),
    );
  });

  it("composeChain equals applying every list of the chain in order", () => {
    const arb = fc.tuple(textArb, fc.nat({ max: 9 })).chain(([text, k]) => chainArb(text, k).map((chain) => ({ text, chain })));
    fc.assert(
      fc.property(arb, ({ text, chain }) => {
        const sequential = chain.reduce<string[]>((lines, ops) => mustApply(lines, ops), [...text]);
        const composed = composeChain(chain);
        expect(isCanonical(composed)).toEqual(true);
        expect(applyOps(text, composed)).toEqual({ ok: true, lines: sequential });
      }),
      propertyParams(500),
    );
  });

  it("composeChain gives the very same ops when a prefix of the chain was composed first", () => {
    // What the write path relies on when it extends a composition it kept instead of recomposing.
    const arb = fc
      .tuple(textArb, fc.nat({ max: 9 }))
      .chain(([text, k]) => chainArb(text, k).chain((chain) => fc.nat({ max: chain.length }).map((cut) => ({ chain, cut }))));
    fc.assert(
      fc.property(arb, ({ chain, cut }) => {
        expect(composeChain([composeChain(chain.slice(0, cut)), ...chain.slice(cut)])).toEqual(composeChain(chain));
      }),
      propertyParams(1000),
    );
  });

  it("the sparse path gives the very ops of the walk for a long list and a short one, either way round", () => {
    // A long text with many changes composed with a few more: what the writer's kept compositions meet.
    const longOps = (n: number) => opsArb(n, { minGap: 1, maxGap: 4, maxCount: 2, maxLines: 2, minOps: 8, maxOps: 40 }).map(canonicalOps);
    const shortOps = (n: number) => fc.oneof(opsArb(n), opsArb(n).map((ops) => ops.slice(0, 2)));
    const arb = fc.array(lineArb, { minLength: 30, maxLength: 150 }).chain((text) =>
      fc.oneof(
        // A long composition extended by a few versions…
        longOps(text.length).chain((first) => shortOps(mustApply(text, first).length).map((second) => ({ text, first, second }))),
        // …and a few versions composed with a long composition made after them.
        shortOps(text.length)
          .map(canonicalOps)
          .chain((first) => longOps(mustApply(text, first).length).map((second) => ({ text, first, second }))),
      ),
    );
    let sparse = 0;
    let sparseShortFirst = 0;
    fc.assert(
      fc.property(arb, ({ text, first, second }) => {
        const walked = composeByWalk(first, second);
        expect(composeSparse(first, second)).toEqual(walked);
        expect(composeOps(first, second)).toEqual(walked);
        expect(applyOps(text, walked)).toEqual({ ok: true, lines: mustApply(mustApply(text, first), second) });
        if (second.length * 4 <= first.length && second.length > 0) sparse++;
        if (first.length * 4 <= second.length && first.length > 0) sparseShortFirst++;
      }),
      propertyParams(3000),
    );
    // The inputs reach both ways of the sparse path of composeOps, not only the direct call.
    expect(sparse).toBeGreaterThan(200);
    expect(sparseShortFirst).toBeGreaterThan(200);
  });

  it("the sparse path keeps the ops of the long list that the short one does not come near, as they are", () => {
    const first = [
      { index: 0, count: 1, lines: ["a"] },
      { index: 3, count: 0, lines: ["b", "c"] },
      { index: 6, count: 2, lines: [] },
      { index: 10, count: 1, lines: ["d"] },
    ];
    // T1 line 9 is T0 line 9, next to the last op's line 10: the two merge into one op.
    const composed = composeSparse(first, [{ index: 9, count: 1, lines: ["x"] }]);
    expect(composed).toEqual([first[0], first[1], first[2], { index: 9, count: 2, lines: ["x", "d"] }]);
    expect(composed[0]).toBe(first[0]);
    expect(composed[1]).toBe(first[1]);
    expect(composed[2]).toBe(first[2]);
    expect(composed).toEqual(composeByWalk(first, [{ index: 9, count: 1, lines: ["x"] }]));
  });

  it("a composition of the versions up to a later base with the one kept for that base is the composition of the whole chain", () => {
    // What the write path relies on when it composes from the composition of a later base (patch-content.ts).
    const arb = fc
      .tuple(textArb, fc.nat({ max: 9 }))
      .chain(([text, k]) =>
        chainArb(text, k).chain((chain) =>
          fc.tuple(fc.nat({ max: chain.length }), fc.nat({ max: chain.length })).map(([x, y]) => ({ chain, a: Math.min(x, y), b: Math.max(x, y) })),
        ),
      );
    fc.assert(
      fc.property(arb, ({ chain, a, b }) => {
        const kept = composeChain(chain.slice(a, b));
        expect(composeOps(composeChain(chain.slice(0, a)), composeChain([kept, ...chain.slice(b)]))).toEqual(composeChain(chain));
      }),
      propertyParams(1000),
    );
  });

  it("canonicalOps keeps the effect of a list and is idempotent", () => {
    const arb = textArb.chain((text) => fc.tuple(fc.constant(text), opsArb(text.length)));
    fc.assert(
      fc.property(arb, ([text, ops]) => {
        const canonical = canonicalOps(ops);
        expect(isCanonical(canonical)).toEqual(true);
        expect(canonicalOps(canonical)).toEqual(canonical);
        expect(applyOps(text, canonical)).toEqual(applyOps(text, ops));
      }),
      propertyParams(500),
    );
  });

  it("diffLines gives canonical ops that turn the first text into the second", () => {
    fc.assert(
      fc.property(textArb, textArb, fc.constantFrom(undefined, 1, 3), (before, after, maxEditLength) => {
        const ops = diffLines(before, after, maxEditLength === undefined ? {} : { maxEditLength });
        expect(isCanonical(ops)).toEqual(true);
        expect(applyOps(before, ops)).toEqual({ ok: true, lines: after });
      }),
      propertyParams(500),
    );
  });

  it("diffLines of a text and the text some ops make is never longer than those ops", () => {
    const arb = textArb.chain((text) => fc.tuple(fc.constant(text), opsArb(text.length)));
    fc.assert(
      fc.property(arb, ([text, ops]) => {
        const size = (list: readonly NormalizedOp[]) => list.reduce((total, op) => total + op.count + op.lines.length, 0);
        expect(size(diffLines(text, mustApply(text, ops)))).toBeLessThanOrEqual(size(ops));
      }),
      propertyParams(500),
    );
  });
});
