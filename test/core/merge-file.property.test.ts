import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import { diffLines } from "../../src/core/diff-lines.js";
import { minimizeOps } from "../../src/core/minimize-ops.js";
import type { NormalizedOp } from "../../src/core/normalized-op.js";
import { rebaseOps } from "../../src/core/rebase-ops.js";
import { mustApply, propertyParams } from "./property-support.js";

/*
 * docs/line-model.md#relation-to-a-three-way-merge: for texts whose lines are all distinct, wherever `git merge-file`
 * merges base, current = apply(F, base) and patched = apply(S, base) cleanly, rebaseOps(F, S) must
 * succeed and give git's text.
 *
 * Each side is generated as a plan over the base (for every line: keep, delete or replace; for every
 * gap between lines: lines to insert) with fresh inserted lines, so every text stays all-distinct.
 * The submitted side sometimes repeats whole foreign hunks (same lines, so git sees an identical
 * change), and each side splits its hunks into ops its own way.
 *
 * Git also treats changes that only touch, and two inserts at one index, as conflicts, where the
 * rule accepts: that direction is allowed. The other direction (git clean, the rule refusing or
 * merging to another text) happens in two corners, both because the rule judges the ops while git
 * judges its own diff of the texts:
 * - an op that rewrites base lines with their own content: a change for the rule, none for git;
 *   minimizeOps closes this corner;
 * - a moved line (a side takes a base line out and puts it back elsewhere): the diff from the base
 *   then has several longest alignments, git may pick another one than the ops carry, and places
 *   lines differently; rebasing diffLines of the texts instead of the ops follows git here.
 * The first property keeps every inserted line fresh and every op real, the generator's one
 * restriction, so neither corner arises; the next two cover one corner each, and the examples show
 * both corners with git's real answer.
 */

type LinePlan = { kind: "keep" } | { kind: "delete" } | { kind: "replace"; size: number };

interface SidePlan {
  readonly lines: readonly LinePlan[];
  /** How many lines to insert before base line g (g = n: at the end). */
  readonly gaps: readonly number[];
}

const linePlanArb: fc.Arbitrary<LinePlan> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ kind: "keep" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "delete" as const }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }).map((size) => ({ kind: "replace" as const, size })) },
);
const gapArb = fc.oneof({ weight: 14, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) });

function sidePlanArb(n: number): fc.Arbitrary<SidePlan> {
  return fc.record({
    lines: fc.array(linePlanArb, { minLength: n, maxLength: n }),
    gaps: fc.array(gapArb, { minLength: n + 1, maxLength: n + 1 }),
  });
}

/** What one side puts at each position: before line g (`gap[g]`), and in place of line i. */
interface SideContent {
  gap: string[][];
  line: (string[] | undefined)[]; // undefined: the line is kept
}

function contentOf(plan: SidePlan, prefix: string): SideContent {
  let fresh = 0;
  const next = () => `${prefix}${fresh++}`;
  return {
    gap: plan.gaps.map((size) => Array.from({ length: size }, next)),
    line: plan.lines.map((p) => (p.kind === "keep" ? undefined : p.kind === "delete" ? [] : Array.from({ length: p.size }, next))),
  };
}

/**
 * The submitted content with some foreign hunks copied over it. A hunk runs between two lines the
 * foreign side keeps; `copy[k]` says whether the k-th run is copied, whether it changes anything or not.
 */
function withCopiedHunks(own: SideContent, foreign: SideContent, copy: readonly boolean[]): SideContent {
  const gap = own.gap.map((lines) => [...lines]);
  const line = [...own.line];
  let run = 0;
  for (let g = 0; g < gap.length; g++) {
    const copying = copy[run] ?? false;
    if (copying) gap[g] = [...(foreign.gap[g] ?? [])];
    if (g === line.length) break;
    if (foreign.line[g] === undefined) run++;
    else if (copying) line[g] = foreign.line[g];
  }
  return { gap, line };
}

/** The ops of a side: one per gap insert and per changed line, with touching ones merged where `merge` says. */
function opsOf(content: SideContent, merge: readonly boolean[]): NormalizedOp[] {
  const pieces: NormalizedOp[] = [];
  for (let g = 0; g < content.gap.length; g++) {
    const inserted = content.gap[g] ?? [];
    if (inserted.length > 0) pieces.push({ index: g, count: 0, lines: inserted });
    const replaced = content.line[g];
    if (replaced !== undefined) pieces.push({ index: g, count: 1, lines: replaced });
  }
  const ops: NormalizedOp[] = [];
  for (const [k, piece] of pieces.entries()) {
    const last = ops.at(-1);
    if (last !== undefined && last.index + last.count === piece.index && (merge[k] ?? false)) {
      ops[ops.length - 1] = { index: last.index, count: last.count + piece.count, lines: [...last.lines, ...piece.lines] };
    } else {
      ops.push(piece);
    }
  }
  return ops;
}

// Mostly texts long enough for both sides to change something apart from each other, some tiny ones
// for the edges (empty files, changes at the end).
const lengthArb = fc.oneof({ weight: 1, arbitrary: fc.integer({ min: 0, max: 4 }) }, { weight: 4, arbitrary: fc.integer({ min: 5, max: 16 }) });

/**
 * The content with some of its inserted lines swapped for base lines the same side took out: moved
 * lines. Each base line is put back at most once, so the side's text stays all-distinct.
 */
function withMovedLines(content: SideContent, moves: readonly boolean[]): SideContent {
  const free = content.line.flatMap((lines, i) => (lines === undefined ? [] : [`L${i}`])).reverse();
  let slot = 0;
  const move = (line: string) => ((moves[slot++] ?? false) ? (free.pop() ?? line) : line);
  return { gap: content.gap.map((lines) => lines.map(move)), line: content.line.map((lines) => lines?.map(move)) };
}

function caseArb(withMoves: boolean) {
  return lengthArb.chain((n) =>
    fc
      .record({
        foreign: sidePlanArb(n),
        submitted: sidePlanArb(n),
        copy: fc.oneof(fc.constant([]), fc.array(fc.boolean(), { maxLength: n + 1 })),
        foreignMerge: fc.array(fc.boolean(), { maxLength: 2 * n + 1 }),
        submittedMerge: fc.array(fc.boolean(), { maxLength: 2 * n + 1 }),
        foreignMoves: withMoves ? fc.array(fc.boolean(), { maxLength: 2 * n }) : fc.constant([]),
        submittedMoves: withMoves ? fc.array(fc.boolean(), { maxLength: 2 * n }) : fc.constant([]),
      })
      .map(({ foreign, submitted, copy, foreignMerge, submittedMerge, foreignMoves, submittedMoves }) => {
        const theirs = contentOf(foreign, "F");
        const ours = withMovedLines(withCopiedHunks(contentOf(submitted, "S"), theirs, copy), submittedMoves);
        const base = Array.from({ length: n }, (_, k) => `L${k}`);
        return { base, foreign: opsOf(withMovedLines(theirs, foreignMoves), foreignMerge), submitted: opsOf(ours, submittedMerge) };
      }),
  );
}

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "folio-merge-file-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Each line ends in "\n", so that no line and one empty line stay different files. */
function write(name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => `${line}\n`).join(""));
  return path;
}

/** git merge-file's merged lines, or "conflict". */
function gitMerge(base: readonly string[], current: readonly string[], patched: readonly string[]): string[] | "conflict" {
  const run = spawnSync("git", ["merge-file", "-p", write("current", current), write("base", base), write("patched", patched)], {
    encoding: "utf8",
    // The user's git configuration must not change the merge.
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  if (run.status === null || run.status < 0 || run.error !== undefined) throw new Error(`git merge-file failed: ${run.stderr}`);
  if (run.status > 0) return "conflict";
  return run.stdout === "" ? [] : run.stdout.slice(0, -1).split("\n");
}

function rebasedText(base: readonly string[], foreign: readonly NormalizedOp[], submitted: readonly NormalizedOp[]): string[] | "overlap" {
  const rebased = rebaseOps(foreign, submitted);
  if (!rebased.ok) return "overlap";
  const result = applyOps(mustApply(base, foreign), rebased.ops);
  if (!result.ok) throw new Error(result.message);
  return result.lines;
}

describe("the corners where the rule on raw ops and git merge-file part, on all-distinct texts", () => {
  const base = ["L0", "L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8", "L9"];

  it("an op that rewrites lines with their own content makes the rule refuse what git merges", () => {
    const foreign: NormalizedOp[] = [{ index: 2, count: 1, lines: ["F"] }];
    const submitted: NormalizedOp[] = [{ index: 2, count: 3, lines: ["L2", "L3", "S"] }];
    const merged = gitMerge(base, mustApply(base, foreign), mustApply(base, submitted));
    expect(merged).toEqual(["L0", "L1", "F", "L3", "S", "L5", "L6", "L7", "L8", "L9"]);
    expect(rebasedText(base, foreign, submitted)).toEqual("overlap");
    expect(rebasedText(base, minimizeOps(base, foreign), minimizeOps(base, submitted))).toEqual(merged);
  });

  it("a moved line can be aligned differently by git, which then merges to another text", () => {
    // The submitted side moves L7 up in front of L6; git reads the same text as L6 moving down, so
    // for git both sides deleted L6 at its old place, and the submitted side put it back lower down.
    const foreign: NormalizedOp[] = [{ index: 6, count: 1, lines: [] }];
    const submitted: NormalizedOp[] = [
      { index: 6, count: 0, lines: ["L7", "S1"] },
      { index: 7, count: 1, lines: ["S2"] },
    ];
    const current = mustApply(base, foreign);
    const patched = mustApply(base, submitted);
    const merged = gitMerge(base, current, patched);
    expect(merged).toEqual(["L0", "L1", "L2", "L3", "L4", "L5", "L7", "S1", "L6", "S2", "L8", "L9"]);
    expect(rebasedText(base, foreign, submitted)).toEqual(["L0", "L1", "L2", "L3", "L4", "L5", "L7", "S1", "S2", "L8", "L9"]);
    expect(rebasedText(base, diffLines(base, current), diffLines(base, patched))).toEqual(merged);
  });
});

describe("rebaseOps against git merge-file, on texts whose lines are all distinct", () => {
  it("wherever git merges cleanly, the rebase succeeds and gives git's text", () => {
    let runs = 0;
    let cleanWithBothSides = 0;
    fc.assert(
      fc.property(caseArb(false), ({ base, foreign, submitted }) => {
        runs++;
        const merged = gitMerge(base, mustApply(base, foreign), mustApply(base, submitted));
        if (merged === "conflict") return;
        if (foreign.length > 0 && submitted.length > 0) cleanWithBothSides++;
        expect(rebasedText(base, foreign, submitted)).toEqual(merged);
      }),
      propertyParams(250),
    );
    // Guards the generator: a property that mostly sees conflicts or one-sided edits proves little.
    expect(cleanWithBothSides).toBeGreaterThan(runs / 8);
  });

  it("with ops that rewrite lines with their own content, minimizing both sides first keeps git's clean merges", () => {
    const paddedArb = caseArb(false).chain(({ base, foreign, submitted }) =>
      fc.tuple(fc.array(fc.nat({ max: 2 }), { maxLength: foreign.length }), fc.array(fc.nat({ max: 2 }), { maxLength: submitted.length })).map(
        ([padForeign, padSubmitted]) => ({ base, foreign: pad(base, foreign, padForeign), submitted: pad(base, submitted, padSubmitted) }),
      ),
    );
    fc.assert(
      fc.property(paddedArb, ({ base, foreign, submitted }) => {
        const merged = gitMerge(base, mustApply(base, foreign), mustApply(base, submitted));
        if (merged === "conflict") return;
        expect(rebasedText(base, minimizeOps(base, foreign), minimizeOps(base, submitted))).toEqual(merged);
      }),
      propertyParams(120),
    );
  });

  it("with lines moved, rebasing the diffs of the texts instead of the ops keeps git's clean merges", () => {
    // A moved line gives the diff from the base more than one longest alignment; the ops carry one,
    // git's diff may pick another, and then the rule on the raw ops can refuse or place lines
    // differently where git merges cleanly. Diffing the texts as git does follows git.
    fc.assert(
      fc.property(caseArb(true), ({ base, foreign, submitted }) => {
        const current = mustApply(base, foreign);
        const patched = mustApply(base, submitted);
        const merged = gitMerge(base, current, patched);
        if (merged === "conflict") return;
        expect(rebasedText(base, diffLines(base, current), diffLines(base, patched))).toEqual(merged);
      }),
      propertyParams(120),
    );
  });
});

/**
 * Widens each op over up to `pad[k]` following base lines that no op touches, rewriting them with
 * their own content: the text it makes is the same, the ranges are larger.
 */
function pad(base: readonly string[], ops: readonly NormalizedOp[], padding: readonly number[]): NormalizedOp[] {
  return ops.map((op, k) => {
    const nextStart = ops[k + 1]?.index ?? base.length;
    const end = op.index + op.count;
    // Stop one line short of the next op, so that padding never makes two ops touch or overlap.
    const extra = Math.max(0, Math.min(padding[k] ?? 0, nextStart - end - 1));
    return { index: op.index, count: op.count + extra, lines: [...op.lines, ...base.slice(end, end + extra)] };
  });
}
