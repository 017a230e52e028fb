import { diffLines } from "./diff-lines.js";
import type { NormalizedOp } from "./normalized-op.js";
import { OpsBuilder } from "./ops-builder.js";

/** Past this many cells (changed items before × after) the weighted search gives way to diffLines. */
const MAX_CELLS = 1_000_000;

/**
 * The ops that turn `before` into `after` (canonical, as diffLines returns), keeping the common
 * items of the largest total length rather than the largest number. A merge of words needs it
 * (docs/line-model.md#merging-inside-lines): where a short word appears twice (" B", the start of
 * a word someone is typing, once in the base and once, another word, in the new text), keeping it
 * could cost a longer word that both texts hold, and what the other side put in next to that word
 * would then be placed next to the wrong one. A word that grew into another (" C", typed on into
 * " C6z") is paired with it too, replaced in place, for less than a word kept: the other side's
 * words put in next to it then stay next to it. Of two ways that keep as much, the one that keeps
 * the earlier items of `before` (what was put in before them rather than what was taken out).
 * Deterministic; past MAX_CELLS it is diffLines' answer.
 */
export function diffWeighted(before: readonly string[], after: readonly string[]): NormalizedOp[] {
  let prefix = 0;
  const shorter = Math.min(before.length, after.length);
  while (prefix < shorter && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  const n = before.length - prefix - suffix;
  const m = after.length - prefix - suffix;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) return diffLines(before, after);
  const a = before.slice(prefix, prefix + n);
  const b = after.slice(prefix, prefix + m);
  // best[i][j]: the most a[i..] and b[j..] can keep (see pairing), one flat row-major array.
  const width = m + 1;
  const best = new Float64Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const skip = Math.max(best[(i + 1) * width + j]!, best[i * width + j + 1]!);
      const paired = pairing(a[i]!, b[j]!);
      best[i * width + j] = paired > 0 ? Math.max(skip, paired + best[(i + 1) * width + j + 1]!) : skip;
    }
  }
  const out = new OpsBuilder();
  out.keep(prefix);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const here = best[i * width + j]!;
    const paired = pairing(a[i]!, b[j]!);
    if (paired > 0 && here === paired + best[(i + 1) * width + j + 1]!) {
      if (a[i] === b[j]) {
        out.keep(1);
      } else {
        out.remove(1);
        out.add(b, j, j + 1);
      }
      i++;
      j++;
    } else if (here === best[i * width + j + 1]!) {
      out.add(b, j, j + 1);
      j++;
    } else {
      out.remove(1);
      i++;
    }
  }
  out.remove(n - i);
  out.add(b, j, m);
  out.keep(suffix);
  return out.finish();
}

/**
 * What pairing two items is worth: an item kept, its length and one; an item that grew into the
 * other or shrank to it (one starts with the other: " C" typed on into " C6z"), replaced in place,
 * the length of the shorter; else nothing.
 */
function pairing(x: string, y: string): number {
  if (x === y) return x.length + 1;
  return x.startsWith(y) || y.startsWith(x) ? Math.min(x.length, y.length) : 0;
}
