import { canonicalOps } from "./canonical-ops.js";
import { diffLines } from "./diff-lines.js";
import type { NormalizedOp } from "./normalized-op.js";

/**
 * The same change as `ops`, with the lines each hunk leaves as they were taken out of it: a hunk that
 * replaces [a, b) is diffed against base lines [a, b), so rewriting a line with itself, or a version
 * that undid an earlier one inside a composition, no longer counts as touching that line. Canonical
 * form. `ops` must apply to `base` (see applyOps).
 *
 * Why it exists: rebaseOps judges overlap on the ops' ranges without the text, so a no-change
 * rewrite of a line would conflict with a foreign change of that line although `git merge-file`,
 * which diffs the texts, merges it cleanly. Minimizing both sides first closes that gap.
 * Cost: a diff of each hunk's own lines, never of the whole text.
 */
export function minimizeOps(base: readonly string[], ops: readonly NormalizedOp[]): NormalizedOp[] {
  const out: NormalizedOp[] = [];
  for (const op of canonicalOps(ops)) {
    const old = base.slice(op.index, op.index + op.count);
    if (hungBelow(old, op.lines)) {
      out.push({ index: op.index, count: 0, lines: op.lines.slice(0, op.lines.length - old.length) });
      continue;
    }
    for (const part of diffLines(old, op.lines)) {
      out.push({ index: op.index + part.index, count: part.count, lines: part.lines });
    }
  }
  return out;
}

/**
 * Whether `lines` are `old` with lines put in before them, though they also read as lines put in
 * after them (empty lines, say): the diff would take the second reading. Clients send the lines a
 * person puts in after someone else's line as lines put in before the line below (docs/line-model.md,
 * "How the client anchors"), and that line's author typing on in it is the common concurrent change:
 * read as put in before, that typing stays in its line.
 */
function hungBelow(old: readonly string[], lines: readonly string[]): boolean {
  if (old.length === 0 || lines.length <= old.length) return false;
  const same = (offset: number) => old.every((line, k) => lines[offset + k] === line);
  return same(0) && same(lines.length - old.length);
}
