/**
 * What changed from one version's text to the next, for the history panel: the lines the shared
 * line diff (src/core diffLines) finds changed, and within a changed line the characters
 * (src/core/char-diff.ts). Unchanged lines are kept only around changes; the rest become a count.
 * Pure: no DOM.
 */
import { charPieces, diffLines, splitLines, type CharPiece } from "../src/core/index.js";

export type DiffRow =
  | { kind: "same"; line: number; text: string }
  | { kind: "removed" | "added"; line: number; pieces: CharPiece[] }
  | { kind: "skipped"; count: number };

/** Unchanged lines shown before and after each change. */
const CONTEXT = 2;

/** A changed line's own pieces: its characters that differ from its counterpart marked, the rest same. */
function sided(pieces: readonly CharPiece[], side: "removed" | "added"): CharPiece[] {
  const other = side === "removed" ? "added" : "removed";
  return pieces.filter((piece) => piece.kind !== other);
}

/** A line with no counterpart: the row marks it; no character stands out from the others. */
function whole(line: string): CharPiece[] {
  return line === "" ? [] : [{ kind: "same", text: line }];
}

/**
 * The rows of the diff from `before` to `after`; `line` is the 1-based line number in the text the
 * row belongs to (the older one for removed lines). A hunk pairs its removed and added lines in
 * order, and each pair is diffed by characters; the lines left over are removed or added whole.
 */
export function versionDiff(before: string, after: string): DiffRow[] {
  // An empty text shows as no line at all: a first version is all added, not "an empty line replaced".
  const old = before === "" ? [] : splitLines(before);
  const next = after === "" ? [] : splitLines(after);
  const full: Exclude<DiffRow, { kind: "skipped" }>[] = [];
  let at = 0;
  let shift = 0;
  const same = (until: number) => {
    for (; at < until; at++) full.push({ kind: "same", line: at + shift + 1, text: old[at] ?? "" });
  };
  for (const op of diffLines(old, next)) {
    same(op.index);
    const removed = old.slice(op.index, op.index + op.count);
    const pairs = removed.map((line, k) => (k < op.lines.length ? charPieces(line, op.lines[k] ?? "") : undefined));
    removed.forEach((line, k) => {
      const pieces = pairs[k];
      full.push({ kind: "removed", line: op.index + k + 1, pieces: pieces ? sided(pieces, "removed") : whole(line) });
    });
    op.lines.forEach((line, k) => {
      const pieces = pairs[k];
      full.push({ kind: "added", line: op.index + shift + k + 1, pieces: pieces ? sided(pieces, "added") : whole(line) });
    });
    at = op.index + op.count;
    shift += op.lines.length - op.count;
  }
  same(old.length);
  return withContext(full);
}

/** Keeps CONTEXT unchanged lines around each change and counts the others (a single one is shown instead). */
function withContext(full: Exclude<DiffRow, { kind: "skipped" }>[]): DiffRow[] {
  const changed = full.map((row) => row.kind !== "same");
  const near = (index: number) => {
    for (let k = Math.max(0, index - CONTEXT); k <= Math.min(full.length - 1, index + CONTEXT); k++) if (changed[k]) return true;
    return false;
  };
  const rows: DiffRow[] = [];
  let far: DiffRow[] = [];
  const flush = () => {
    if (far.length === 1) rows.push(...far);
    else if (far.length > 1) rows.push({ kind: "skipped", count: far.length });
    far = [];
  };
  for (const [index, row] of full.entries()) {
    if (row.kind === "same" && !near(index)) {
      far.push(row);
      continue;
    }
    flush();
    rows.push(row);
  }
  flush();
  return rows;
}

/** How many lines were taken out and put in, for a one-line summary. */
export function diffCounts(rows: readonly DiffRow[]): { removed: number; added: number } {
  let removed = 0;
  let added = 0;
  for (const row of rows) {
    if (row.kind === "removed") removed++;
    else if (row.kind === "added") added++;
  }
  return { removed, added };
}
