import { diffLines } from "./diff-lines.js";

/** One step of an alignment of two runs of lines (indices into each). */
export type LineStep =
  | { readonly kind: "keep" | "pair"; readonly before: number; readonly after: number }
  | { readonly kind: "remove"; readonly before: number }
  | { readonly kind: "add"; readonly after: number };

/** The characters `[from, to)` of a line (by its index) to hold on to in an alignment, if any. */
export type HeldSpan = (line: number) => readonly [from: number, to: number] | undefined;

/** Past this many cells (changed lines before × after) the weighted search gives way to diffLines. */
const MAX_CELLS = 250_000;

/**
 * How the lines `before` became `after`, line by line: kept, paired (a line edited into another),
 * taken out, put in. It keeps the lines of the largest total length rather than the largest number,
 * and pairs a line with the line it was edited into (the same start or end
 * the shorter one). Where ops take a line out and put the same line in a little further on (a
 * composition of versions, a minimized list), or an empty line stands on both sides, keeping the
 * empty one could cost the long line both hold, and an edit someone made meanwhile in that line
 * would be taken for a line deleted and typed again. Of two ways that keep as much, the one that
 * keeps the earlier lines of `before`. A line of `before` for which `held` gives a span (the
 * characters in it to hold on to, such as the person's own typing) is kept over any other where
 * `after` has it unchanged, and otherwise paired with the line that keeps most of that span.
 * Deterministic; past MAX_CELLS it is diffLines' answer, with no pairs.
 */
export function alignLines(before: readonly string[], after: readonly string[], held: HeldSpan = () => undefined): LineStep[] {
  const steps: LineStep[] = [];
  let prefix = 0;
  const shorter = Math.min(before.length, after.length);
  while (prefix < shorter && before[prefix] === after[prefix]) steps.push({ kind: "keep", before: prefix, after: prefix++ });
  let suffix = 0;
  while (suffix < shorter - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  const n = before.length - prefix - suffix;
  const m = after.length - prefix - suffix;
  if (n * m > MAX_CELLS) steps.push(...unpaired(before.slice(prefix, prefix + n), after.slice(prefix, prefix + m), prefix));
  else steps.push(...weighted(before, after, prefix, n, m, held));
  for (let k = suffix; k > 0; k--) steps.push({ kind: "keep", before: before.length - k, after: after.length - k });
  return steps;
}

function weighted(before: readonly string[], after: readonly string[], offset: number, n: number, m: number, held: HeldSpan): LineStep[] {
  const a = (i: number) => before[offset + i]!;
  const b = (j: number) => after[offset + j]!;
  // A held line kept outweighs any other pairing; a held character kept in a pair outweighs any line's length.
  const pairing = (i: number, j: number) => {
    const common = commonEnds(a(i), b(j));
    const span = held(offset + i);
    if (!span) return common.worth;
    if (a(i) === b(j)) return common.worth + 1_000_000;
    const [from, to] = span;
    const kept = Math.max(0, Math.min(to, common.start) - from) + Math.max(0, to - Math.max(from, a(i).length - common.end));
    return common.worth + 1_000 * kept;
  };
  // best[i][j]: the most a[i..] and b[j..] can keep (see pairing), one flat row-major array.
  const width = m + 1;
  const best = new Float64Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const skip = Math.max(best[(i + 1) * width + j]!, best[i * width + j + 1]!);
      const paired = pairing(i, j);
      best[i * width + j] = paired > 0 ? Math.max(skip, paired + best[(i + 1) * width + j + 1]!) : skip;
    }
  }
  const steps: LineStep[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const here = best[i * width + j]!;
    const paired = pairing(i, j);
    if (paired > 0 && here === paired + best[(i + 1) * width + j + 1]!) {
      steps.push({ kind: a(i) === b(j) ? "keep" : "pair", before: offset + i++, after: offset + j++ });
    } else if (here === best[i * width + j + 1]!) {
      steps.push({ kind: "add", after: offset + j++ });
    } else {
      steps.push({ kind: "remove", before: offset + i++ });
    }
  }
  while (i < n) steps.push({ kind: "remove", before: offset + i++ });
  while (j < m) steps.push({ kind: "add", after: offset + j++ });
  return steps;
}

/** diffLines' alignment, as steps: kept lines and runs taken out and put in, no pairs. */
function unpaired(before: readonly string[], after: readonly string[], offset: number): LineStep[] {
  const steps: LineStep[] = [];
  let i = 0;
  let j = 0;
  for (const op of diffLines(before, after)) {
    while (i < op.index) steps.push({ kind: "keep", before: offset + i++, after: offset + j++ });
    for (let k = 0; k < op.count; k++) steps.push({ kind: "remove", before: offset + i++ });
    for (let k = 0; k < op.lines.length; k++) steps.push({ kind: "add", after: offset + j++ });
  }
  while (i < before.length) steps.push({ kind: "keep", before: offset + i++, after: offset + j++ });
  return steps;
}

/**
 * How alike two lines are at their ends (`start`, `end`: the lengths in common) and what pairing
 * them is worth: a line kept, its length and one; a line edited into the other (they start or end
 * alike), that common length; else nothing.
 */
function commonEnds(x: string, y: string): { start: number; end: number; worth: number } {
  if (x === y) return { start: x.length, end: 0, worth: x.length + 1 };
  const shorter = Math.min(x.length, y.length);
  let start = 0;
  while (start < shorter && x.charCodeAt(start) === y.charCodeAt(start)) start++;
  let end = 0;
  while (end < shorter - start && x.charCodeAt(x.length - 1 - end) === y.charCodeAt(y.length - 1 - end)) end++;
  return { start, end, worth: start + end };
}
