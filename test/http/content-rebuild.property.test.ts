import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { canonicalOps } from "../../src/core/canonical-ops.js";
import { checksumOf } from "../../src/core/checksum.js";
import { diffLines } from "../../src/core/diff-lines.js";
import { joinLines, splitLines } from "../../src/core/lines.js";
import { toLineOperation, type NormalizedOp } from "../../src/core/normalized-op.js";
import { rebuildAfterPatch } from "../../src/core/rebuild-rule.js";
import { validateOps } from "../../src/core/validate-ops.js";
import { lineArb, opsArb, propertyParams, textArb } from "../core/property-support.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { DOCUMENTS } from "../support/http-expect.js";

// The rebuild rule (docs/editing-protocol.md): for every 200 to a stale patch, a client that runs
// rebuildAfterPatch on its base, its ops and the answer's opsSinceBase holds the service's text
// byte for byte, and the answer's checksum is that text's. The foreign versions include ones that
// undo each other; the submitted ops include coarse hunks (lines rewritten with their own content)
// and changes a foreign version already made.


const mustApply = (lines: readonly string[], ops: readonly NormalizedOp[]): string[] => {
  const result = applyOps(lines, ops);
  if (!result.ok) throw new Error(`generated ops do not apply: ${result.message}`);
  return result.lines;
};

/** Widens each hunk by up to `widen` untouched lines on either side, rewriting them with themselves. */
function coarsen(base: readonly string[], ops: readonly NormalizedOp[], widen: number): NormalizedOp[] {
  const hunks = canonicalOps(ops);
  const out: NormalizedOp[] = [];
  let floor = 0;
  for (const [k, op] of hunks.entries()) {
    const start = Math.max(floor, op.index - widen);
    const end = Math.min(hunks[k + 1]?.index ?? base.length, op.index + op.count + widen);
    out.push({ index: start, count: end - start, lines: [...base.slice(start, op.index), ...op.lines, ...base.slice(op.index + op.count, end)] });
    floor = end;
  }
  return out;
}

interface Scenario {
  base: string[];
  foreign: NormalizedOp[][];
  submitted: NormalizedOp[];
}

/** A base, one to three foreign versions (the last may undo the first) and a stale patch. */
const scenarioArb: fc.Arbitrary<Scenario> = textArb
  .map((lines) => (lines.length === 0 ? [""] : lines))
  .chain((base) =>
    fc.record({
      first: opsArb(base.length),
      mode: fc.constantFrom("one", "two", "undo", "same"),
      submittedSeed: opsArb(base.length),
      widen: fc.nat({ max: 2 }),
      secondLines: fc.array(lineArb, { maxLength: 12 }),
    }).map(({ first: raw, mode, submittedSeed, widen, secondLines }) => {
      const first = canonicalOps(raw);
      const foreign: NormalizedOp[][] = [first];
      const afterFirst = mustApply(base, first);
      if (mode === "two") foreign.push(diffLines(afterFirst, secondLines.length > 0 ? secondLines : [""]));
      if (mode === "undo") foreign.push(diffLines(afterFirst, base));
      // "same": the patch makes (part of) the change the foreign version made, widened or not.
      const own = mode === "same" ? diffLines(base, afterFirst) : submittedSeed;
      return { base, foreign, submitted: coarsen(base, own, widen) };
    }),
  );

describe("the rebuild rule against the service", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("lets a client rebuild the service's text, and its checksum, from every 200 to a stale patch", async () => {
    const tally = { accepted: 0, shifted: 0, naiveWrong: 0, conflicts: 0 };
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ base, foreign, submitted }) => {
        const created = await t.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "P", content: joinLines(base) } });
        const id = created.json<{ id: string }>().id;
        const url = `${DOCUMENTS}/${id}/content`;
        let text = base;
        for (const [k, ops] of foreign.entries()) {
          const body = { baseVersion: k + 1, checksum: checksumOf(joinLines(text)), clientId: "foreign", seq: k + 1, milestone: true, ops: ops.map(toLineOperation) };
          const answer = await t.app.inject({ method: "PATCH", url, payload: body });
          expect(answer.statusCode, answer.body).toBe(200);
          text = splitLines((await t.app.inject({ url: `${DOCUMENTS}/${id}` })).json<{ content: string }>().content);
        }
        if (submitted.length === 0) return;
        const body = { baseVersion: 1, checksum: checksumOf(joinLines(base)), clientId: "stale", seq: 1, ops: submitted.map(toLineOperation) };
        const answer = await t.app.inject({ method: "PATCH", url, payload: body });
        if (answer.statusCode === 409) {
          tally.conflicts++;
          return;
        }
        expect(answer.statusCode, answer.body).toBe(200);
        const result = answer.json<{ version: number; opsSinceBase: never[]; checksum: string }>();
        const sinceBase = validateOps(result.opsSinceBase);
        if (!sinceBase.ok) throw new Error(sinceBase.message);
        const rebuilt = rebuildAfterPatch(base, submitted, sinceBase.ops);
        const held = (await t.app.inject({ url: `${DOCUMENTS}/${id}` })).json<{ content: string; version: number }>();
        expect(rebuilt).toEqual({ ok: true, lines: splitLines(held.content) });
        expect(rebuilt.ok && joinLines(rebuilt.lines)).toBe(held.content);
        expect(result.checksum).toBe(checksumOf(held.content));
        expect(result.version).toBe(held.version);
        // A repeat answers the same, checksum included.
        const repeat = await t.app.inject({ method: "PATCH", url, payload: body });
        expect(repeat.json()).toEqual(result);

        tally.accepted++;
        if (sinceBase.ops.length > 0) tally.shifted++;
        const naive = applyOps(mustApply(base, sinceBase.ops), submitted);
        if (!naive.ok || joinLines(naive.lines) !== held.content) tally.naiveWrong++;
      }),
      propertyParams(250),
    );
    // Not vacuous: most patches are accepted and shifted, and for some of them the naive rebuild
    // (opsSinceBase, then the ops as submitted) is wrong: the flaw this rule closes.
    expect(tally.accepted).toBeGreaterThan(60);
    expect(tally.shifted).toBeGreaterThan(40);
    expect(tally.naiveWrong).toBeGreaterThan(5);
  });
});
