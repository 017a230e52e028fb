import { applyOps } from "./apply-ops.js";
import { minimizeOps } from "./minimize-ops.js";
import type { NormalizedOp } from "./normalized-op.js";
import { changeAlreadyMade, rebaseOps } from "./rebase-ops.js";

/**
 * The outcome of {@link rebasePatch}: the submitted ops shifted onto the current text together with
 * the foreign ops they were shifted over (what the answer's `opsSinceBase` carries), or a true
 * overlap, or (when called without the base text) the need for it.
 */
export type PatchRebase =
  | { ok: true; ops: NormalizedOp[]; opsSinceBase: NormalizedOp[] }
  | { ok: false; needsBase: false; opsSinceBase: NormalizedOp[] }
  | { ok: false; needsBase: true };

/**
 * The rebase of a stale patch, the one rule the service applies and a client repeats after a 200
 * (docs/editing-protocol.md, "The rebuild rule"). `foreign` is what happened since the patch's base,
 * `submitted` the patch's ops, both against the base text `base`. The ladder, first success wins:
 *
 * 1. rebase `submitted` over `foreign` as they are;
 * 2. (needs the base text) minimize `foreign` against the base, and rebase `submitted` over that;
 * 3. the same with `submitted` minimized too (a coarse hunk that rewrites lines with themselves);
 * 4. when `submitted` empties the text, rebase "replace every base line with one empty line" (the
 *    way an emptied text is recorded) instead: a foreign version that emptied it did the same.
 *
 * From step 2 on, `opsSinceBase` is the minimized `foreign`. A client that runs this function on the
 * answer's `opsSinceBase` goes down the same ladder: minimizing minimal ops changes nothing, so its
 * steps 1 and 2 are the service's step 2 and its steps 3 and 4 the service's.
 *
 * Without `base`, only step 1 runs; when it fails the result says `needsBase`, so that the service
 * rebuilds an old text only on this rare path.
 */
export function rebasePatch(foreign: readonly NormalizedOp[], submitted: readonly NormalizedOp[], base?: readonly string[]): PatchRebase {
  const step = climb(foreign, submitted, base);
  if (step.ok) return { ok: true, ops: step.ops, opsSinceBase: step.foreign };
  return step.needsBase ? { ok: false, needsBase: true } : { ok: false, needsBase: false, opsSinceBase: step.foreign };
}

/** The ladder of {@link rebasePatch}, telling which foreign and submitted ops the successful step rebased. */
function climb(
  foreign: readonly NormalizedOp[],
  submitted: readonly NormalizedOp[],
  base?: readonly string[],
): { ok: true; ops: NormalizedOp[]; foreign: NormalizedOp[]; submitted: readonly NormalizedOp[] } | { ok: false; needsBase: boolean; foreign: NormalizedOp[] } {
  const direct = rebaseOps(foreign, submitted);
  if (direct.ok) return { ok: true, ops: direct.ops, foreign: [...foreign], submitted };
  if (base === undefined) return { ok: false, needsBase: true, foreign: [...foreign] };
  const minimal = minimizeOps(base, foreign);
  for (const ours of [submitted, () => minimizeOps(base, submitted), () => emptyingAsRecorded(base, submitted)]) {
    const ops = typeof ours === "function" ? ours() : ours;
    if (ops === undefined) continue;
    const rebased = rebaseOps(minimal, ops);
    if (rebased.ok) return { ok: true, ops: rebased.ops, foreign: minimal, submitted: ops };
  }
  return { ok: false, needsBase: false, foreign: minimal };
}

/**
 * True when the service, answering 200 to a patch of `submitted` against `base` with
 * `opsSinceBase`, dropped a hunk of it as a change already made (the same lines put in the same
 * place by a version since the base): two people who typed the same thing at one point at once,
 * a blank at the end of one line most often, find it once in the service's text.
 */
export function droppedAsAlreadyMade(base: readonly string[], submitted: readonly NormalizedOp[], opsSinceBase: readonly NormalizedOp[]): boolean {
  if (opsSinceBase.length === 0) return false;
  const step = climb(opsSinceBase, submitted, base);
  return step.ok && changeAlreadyMade(step.foreign, step.submitted);
}

/** `[replace every line with ""]` when `ops` take every base line out, else undefined. */
function emptyingAsRecorded(base: readonly string[], ops: readonly NormalizedOp[]): NormalizedOp[] | undefined {
  const delta = ops.reduce((sum, op) => sum + op.lines.length - op.count, 0);
  return base.length > 0 && base.length + delta === 0 ? [{ index: 0, count: base.length, lines: [""] }] : undefined;
}

/** The outcome of {@link applyRebased}: the new lines and the ops that are recorded for them. */
export type AppliedPatch = { ok: true; lines: string[]; ops: NormalizedOp[] } | { ok: false; message: string };

/**
 * Applies rebased ops to the current lines. Ops that take out every line leave no line at all, but
 * the empty text is one empty line: they are recorded as putting that line in, so that the head, a
 * replay of the stored ops and a split of the stored text all agree on `[""]`.
 */
export function applyRebased(current: readonly string[], ops: readonly NormalizedOp[]): AppliedPatch {
  const applied = applyOps(current, ops);
  if (!applied.ok) return applied;
  if (applied.lines.length > 0) return { ok: true, lines: applied.lines, ops: [...ops] };
  return { ok: true, lines: [""], ops: [{ index: 0, count: current.length, lines: [""] }] };
}

/** The outcome of {@link rebuildAfterPatch}. */
export type RebuiltAfterPatch = { ok: true; lines: string[] } | { ok: false; message: string };

/**
 * The client's half of the rule: the text the service holds after it answered 200 to a patch of
 * `submitted` against `base`, with `opsSinceBase` from that answer. The current text is
 * apply(base, opsSinceBase); the patch's ops are rebased by {@link rebasePatch} and applied to it
 * by {@link applyRebased}, exactly as the service did. Its checksum (checksumOf(joinLines(lines)))
 * is the answer's `checksum`; a difference means the client must reload.
 */
export function rebuildAfterPatch(
  base: readonly string[],
  submitted: readonly NormalizedOp[],
  opsSinceBase: readonly NormalizedOp[],
): RebuiltAfterPatch {
  const current = applyOps(base, opsSinceBase);
  if (!current.ok) return { ok: false, message: `opsSinceBase do not fit the base text: ${current.message}` };
  if (opsSinceBase.length === 0) {
    // The base was current: the service applied the ops as submitted.
    const applied = applyRebased(base, submitted);
    return applied.ok ? { ok: true, lines: applied.lines } : applied;
  }
  const rebased = rebasePatch(opsSinceBase, submitted, base);
  if (!rebased.ok) return { ok: false, message: "the patch overlaps opsSinceBase; the service would have answered 409" };
  const applied = applyRebased(current.lines, rebased.ops);
  return applied.ok ? { ok: true, lines: applied.lines } : applied;
}
