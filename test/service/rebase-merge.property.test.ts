import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { joinLines } from "../../src/core/lines.js";
import { toLineOperation, type NormalizedOp } from "../../src/core/normalized-op.js";
import { propertyParams } from "../core/property-support.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";

// docs/line-model.md#relation-to-a-three-way-merge: for texts whose lines are all distinct, wherever `git merge-file` merges base,
// current and the patched base cleanly, the service accepts and produces the same text. Unlike the
// core property, the edits here may be non-minimal: a replace may put back some of the lines it
// takes out (a client that rewrites a line with its own content). The raw op rule sees an overlap
// there; the pipeline must still agree with git.

const checksum = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

interface EditSpec {
  gap: number;
  count: number;
  keepMask: boolean[];
  fresh: number;
}

const editSpecArb = fc.record({
  gap: fc.nat({ max: 3 }),
  count: fc.nat({ max: 3 }),
  keepMask: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  fresh: fc.nat({ max: 2 }),
});

/** Ops over `n` distinct base lines; a replace keeps the masked base lines of its range, in order, then adds fresh ones. */
function buildOps(base: readonly string[], specs: readonly EditSpec[], side: string): NormalizedOp[] {
  const ops: NormalizedOp[] = [];
  let cursor = 0;
  let freshCounter = 0;
  for (const spec of specs) {
    const index = cursor + spec.gap;
    if (index > base.length) break;
    const count = Math.min(spec.count, base.length - index);
    const kept = base.slice(index, index + count).filter((_, i) => spec.keepMask[i]);
    const fresh = Array.from({ length: spec.fresh }, () => `${side}${freshCounter++}`);
    const lines = [...kept, ...fresh];
    if (count === 0 && lines.length === 0) continue;
    ops.push({ index, count, lines });
    cursor = index + count + 1;
  }
  return ops;
}

function gitMerge(dir: string, base: string[], current: string[], patched: string[]): string[] | undefined {
  const write = (name: string, lines: string[]) => writeFileSync(join(dir, name), `${joinLines(lines)}\n`);
  write("base", base);
  write("current", current);
  write("patched", patched);
  try {
    const merged = execFileSync("git", ["merge-file", "-p", join(dir, "current"), join(dir, "base"), join(dir, "patched")], { encoding: "utf8" });
    return merged.replace(/\n$/, "").split("\n");
  } catch {
    return undefined;
  }
}

describe("the content pipeline against git merge-file", () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await buildTestApp();
    dir = mkdtempSync(join(tmpdir(), "folio-merge-"));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("accepts every clean three-way merge of non-minimal edits and produces git's text", async () => {
    let clean = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10 }),
        fc.array(editSpecArb, { maxLength: 3 }),
        fc.array(editSpecArb, { maxLength: 3 }),
        async (n, foreignSpecs, submittedSpecs) => {
          const base = Array.from({ length: n }, (_, i) => `L${i}`);
          const foreign = buildOps(base, foreignSpecs, "F");
          const submitted = buildOps(base, submittedSpecs, "S");
          if (foreign.length === 0 || submitted.length === 0) return;
          const current = (applyOps(base, foreign) as { lines: string[] }).lines;
          const patched = (applyOps(base, submitted) as { lines: string[] }).lines;
          const merged = gitMerge(dir, base, current, patched);
          if (!merged) return;
          clean++;

          const created = await t.app.inject({ method: "POST", url: "/api/v1/documents", payload: { title: "P", content: joinLines(base) } });
          const id = created.json<{ id: string }>().id;
          const url = `/api/v1/documents/${id}/content`;
          const first = await t.app.inject({
            method: "PATCH",
            url,
            payload: { baseVersion: 1, checksum: checksum(joinLines(base)), clientId: "foreign", seq: 1, ops: foreign.map(toLineOperation) },
          });
          expect(first.statusCode).toBe(200);
          const second = await t.app.inject({
            method: "PATCH",
            url,
            payload: { baseVersion: 1, checksum: checksum(joinLines(base)), clientId: "submitted", seq: 1, ops: submitted.map(toLineOperation) },
          });
          expect(second.statusCode, second.body).toBe(200);
          const text = (await t.app.inject({ url: `/api/v1/documents/${id}` })).json<{ content: string }>().content;
          expect(text.split("\n")).toEqual(merged);
        },
      ),
      propertyParams(300),
    );
    // Not vacuous: a fair share of random edit pairs merge cleanly (about one in six).
    expect(clean).toBeGreaterThanOrEqual(10);
  });
});
