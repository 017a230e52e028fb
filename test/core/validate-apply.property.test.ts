import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { canonicalOps } from "../../src/core/canonical-ops.js";
import { toLineOperation } from "../../src/core/normalized-op.js";
import { validateOps } from "../../src/core/validate-ops.js";
import { opsArb, propertyParams, spliceApply, textArb, wireOpsArb } from "./property-support.js";

describe("validate and apply, for random op lists", () => {
  it("every op list that follows the rules validates and applies like splicing from the end", () => {
    const arb = textArb.chain((text) => fc.tuple(fc.constant(text), wireOpsArb(text.length)));
    fc.assert(
      fc.property(arb, ([text, wire]) => {
        const validated = validateOps(wire);
        expect(validated.ok).toEqual(true);
        if (!validated.ok) return;
        expect(applyOps(text, validated.ops)).toEqual({ ok: true, lines: spliceApply(text, validated.ops) });
      }),
      propertyParams(1000),
    );
  });

  it("applyOps never fails on ops within the text", () => {
    const arb = textArb.chain((text) => fc.tuple(fc.constant(text), opsArb(text.length)));
    fc.assert(
      fc.property(arb, ([text, ops]) => {
        expect(applyOps(text, ops)).toEqual({ ok: true, lines: spliceApply(text, ops) });
      }),
      propertyParams(1000),
    );
  });

  it("applyOps fails on ops that reach past the text", () => {
    const arb = textArb.chain((text) => fc.tuple(fc.constant(text), opsArb(text.length + 3)));
    fc.assert(
      fc.property(arb, ([text, ops]) => {
        const fits = ops.every((op) => op.index + op.count <= text.length);
        expect(applyOps(text, ops).ok).toEqual(fits);
      }),
      propertyParams(500),
    );
  });

  it("a canonical list written in wire form validates back to itself", () => {
    const arb = textArb.chain((text) => opsArb(text.length));
    fc.assert(
      fc.property(arb, (ops) => {
        const canonical = canonicalOps(ops);
        expect(validateOps(canonical.map(toLineOperation))).toEqual({ ok: true, ops: canonical });
      }),
      propertyParams(500),
    );
  });
});
