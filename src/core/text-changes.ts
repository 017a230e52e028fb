import { ChangeSet, Text, type ChangeSpec } from "@codemirror/state";
import { charChanges, type AlignHints, type TextEdit } from "./char-diff.js";
import { alignLines, type HeldSpan, type LineStep } from "./align-lines.js";
import { diffLines } from "./diff-lines.js";
import type { NormalizedOp } from "./normalized-op.js";

/**
 * The bridge between the two shapes of one change (docs/editing-protocol.md, "Edits as edits"): the
 * line ops the service speaks, and the character changes an editor makes (CodeMirror's `ChangeSet`,
 * offsets in UTF-16 code units over a `Text` whose lines are the document's lines).
 */

/** Ops closer than this many unchanged lines are read as one region (see changesOfLineOps). */
const REGION_GAP = 3;

/** The ops in regions of `before` (ops a few lines apart read as one): their lines before and after. */
function regions(before: Text, ops: readonly NormalizedOp[], gap: number): Array<{ start: number; old: string[]; next: string[] }> {
  const out: Array<{ start: number; old: string[]; next: string[] }> = [];
  for (let k = 0; k < ops.length; ) {
    const start = ops[k]!.index;
    let end = start + ops[k]!.count;
    let last = k + 1;
    while (last < ops.length && ops[last]!.index - end <= gap) end = Math.max(end, ops[last]!.index + ops[last++]!.count);
    const old = linesOf(before, start + 1, end);
    const next = old.slice();
    for (let j = last - 1; j >= k; j--) next.splice(ops[j]!.index - start, ops[j]!.count, ...ops[j]!.lines);
    out.push({ start, old, next });
    k = last;
  }
  return out;
}

/** Lines `[index, index + count)` of a text replaced by `lines`; `alone` when it is one held line paired with another. */
interface Span {
  index: number;
  count: number;
  lines: string[];
  alone: boolean;
}

/**
 * The ops of each region diffed anew, line by line (alignLines): an op list may take a line out and
 * put the same line in a little further on (a composition of versions, a minimized list), and read
 * as it is, that line would be deleted and typed again, and an edit someone made in it meanwhile
 * lost. Realigned, the longest lines both sides have are kept, and a line edited into another is
 * replaced by it in place. Adjacent changes become one span.
 */
function realigned(before: Text, ops: readonly NormalizedOp[], held: HeldSpan, gap: number, hints: AlignHints | undefined): Span[] {
  const spans: Span[] = [];
  for (const { start, old, next } of regions(before, ops, gap)) {
    let open: Span | undefined;
    /** The next line of `old` not yet walked over. */
    let at = 0;
    const steps = hints && hungBelow(before, start, old, next, hints) ? alignedFromTheEnd(old, next, (k) => held(start + k)) : alignLines(old, next, (k) => held(start + k));
    for (const step of steps) {
      if (step.kind === "keep") {
        open = undefined;
        at++;
        continue;
      }
      // A held line edited into another is diffed alone, so that what is held in it stays in it.
      const alone = step.kind === "pair" && held(start + step.before) !== undefined;
      if (!open || alone || open.alone) {
        const index = start + at;
        const last = spans.at(-1);
        open = last && !alone && !last.alone && last.index + last.count === index ? last : { index, count: 0, lines: [], alone };
        if (open !== last) spans.push(open);
      }
      if (step.kind !== "add") {
        open.count++;
        at++;
      }
      if (step.kind !== "remove") open.lines.push(next[step.after]!);
    }
  }
  return spans;
}

export type { AlignHints } from "./char-diff.js";

/**
 * Whether the lines `old` (from line `start`) became `next` by lines put in before them, though the
 * same lines at the start of `next` read as lines put in after them (empty lines, say): read so when
 * the end of the last of them was typed here. Someone else's new lines go after a line only when they
 * hang on it as their own text (lineOpsOfChanges); before a line of this client's they hang on the
 * line below, that is, on this one from above.
 */
function hungBelow(before: Text, start: number, old: string[], next: string[], hints: AlignHints): boolean {
  if (old.length === 0 || next.length <= old.length) return false;
  const same = (offset: number) => old.every((line, k) => next[offset + k] === line);
  return same(0) && same(next.length - old.length) && hints.ownBefore(before.line(start + old.length).to);
}

/** alignLines' answer read from the ends: of two ways that keep as much, the one keeping the later lines. */
function alignedFromTheEnd(old: string[], next: string[], held: HeldSpan): LineStep[] {
  const n = old.length;
  const m = next.length;
  return alignLines(old.slice().reverse(), next.slice().reverse(), (k) => held(n - 1 - k))
    .reverse()
    .map((step): LineStep => (step.kind === "add" ? { kind: "add", after: m - 1 - step.after } : step.kind === "remove" ? { kind: "remove", before: n - 1 - step.before } : { kind: step.kind, before: n - 1 - step.before, after: m - 1 - step.after }));
}

/**
 * Line ops against the lines of `before` as character changes on it (realigned first). A run of
 * lines replaced by other lines is diffed by characters inside those lines only, so that a change at
 * one place of a line leaves the rest of the line (and a cursor or an unsent edit there) where it is.
 * Lines put in between two lines become a line break and the new lines at the end of the line above
 * ("\nX"), or, before the first line, the new lines and a line break at its start ("X\n"); lines
 * taken out take the line break before them ("\nK"; the one after them only for the first line). So
 * text put in at the end of the line above, or lines put in after the lines taken out, are never
 * inside what is taken out (see wholeLinesOut). The ops' lines are the shown ones; the lines of
 * `before` for which `held` gives a span are kept (or paired) where they can be (see alignLines);
 * ops at most `gap` lines apart are read as one region. Where they could be read two ways, both the
 * same text, `hints` choose: text put in beside like characters goes on after what others put in
 * lately rather than after one's own (charChanges), and lines that could go before or after a line this client typed the end
 * of go before it (hungBelow).
 */
export function changesOfLineOps(before: Text, ops: readonly NormalizedOp[], held: HeldSpan = () => undefined, gap = REGION_GAP, hints?: AlignHints): ChangeSet {
  const specs: ChangeSpec[] = [];
  const count = before.lines;
  for (const span of realigned(before, ops, held, gap, hints)) {
    const end = span.index + span.count;
    const added = span.lines.join("\n");
    if (span.count > 0 && span.lines.length > 0) {
      const from = before.line(span.index + 1).from;
      specs.push(...charChanges(before.sliceString(from, before.line(end).to), added, from, hints));
    } else if (span.count > 0) {
      if (span.index > 0) specs.push({ from: before.line(span.index).to, to: before.line(end).to });
      else if (end < count) specs.push({ from: 0, to: before.line(end + 1).from });
      else specs.push({ from: 0, to: before.length });
    } else if (span.index > 0) {
      specs.push({ from: before.line(Math.min(span.index, count)).to, insert: `\n${added}` });
    } else {
      specs.push({ from: 0, insert: `${added}\n` });
    }
  }
  return ChangeSet.of(specs, before.length);
}

/**
 * The line ops that make `after` (= changes.apply(before)) from `before`: for every run of changed
 * characters, the lines it touches replaced by the lines they became. Lines are never put in or
 * taken out alone, they go with the line they hang on: new lines typed after a line of one's own
 * ("\nY" after text this client typed, `ownBefore` of a position in `after`) replace that line by
 * itself and them; others
 * replace the line below by them and itself, as "Y\n" before it (after the last line they go in
 * alone). So the service turns a change of
 * the same line by someone else into a conflict the client merges by characters, and lines put in
 * at one point by two people stay in one piece each (docs/line-model.md, "How the client anchors").
 */
export function lineOpsOfChanges(before: Text, changes: ChangeSet, after: Text = changes.apply(before), ownBefore: (at: number) => boolean = () => false): NormalizedOp[] {
  const hunks: Array<{ from: number; to: number; newFrom: number; newTo: number }> = [];
  changes.iterChanges((fromA, toA, fromB, toB, inserted) => {
    const line = before.lineAt(fromA);
    const below = fromA === toA && fromA === line.to && inserted.sliceString(0, 1) === "\n" && !ownBefore(fromB);
    // Hung on the line below; after the last line there is none, and the lines go in alone there.
    const last = below && line.number === before.lines;
    const shift = below && !last ? 1 : 0;
    const from = line.number + (below ? 1 : 0);
    const to = last ? line.number : before.lineAt(toA).number + shift;
    const newFrom = after.lineAt(fromB).number + (below ? 1 : 0);
    const newTo = after.lineAt(toB).number + shift;
    const previous = hunks.at(-1);
    if (previous && from <= previous.to) {
      previous.to = Math.max(previous.to, to);
      previous.newTo = Math.max(previous.newTo, newTo);
    } else {
      hunks.push({ from, to, newFrom, newTo });
    }
  });
  return hunks.map((hunk) => ({ index: hunk.from - 1, count: hunk.to - hunk.from + 1, lines: linesOf(after, hunk.newFrom, hunk.newTo) }));
}

/**
 * The same change with every deletion of whole lines ("K\n", from a line's start to the next line's)
 * taken as the line break before them instead ("\nK"), the same text either way: so lines someone
 * else puts in after the deleted ones ("\nX" at the end of K) are not inside the deletion, where
 * they would keep their break but lose the one after them (docs/editing-protocol.md, "The merge rule").
 */
export function wholeLinesOut(doc: Text, changes: ChangeSet): ChangeSet {
  const specs: ChangeSpec[] = [];
  let moved = false;
  let lastEnd = -1;
  changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    const whole = inserted.length === 0 && fromA > 0 && fromA < toA && doc.lineAt(fromA).from === fromA && doc.lineAt(toA).from === toA && lastEnd < fromA - 1;
    if (whole) moved = true;
    specs.push(whole ? { from: fromA - 1, to: toA - 1 } : { from: fromA, to: toA, insert: inserted });
    lastEnd = toA;
  });
  return moved ? ChangeSet.of(specs, doc.length) : changes;
}

/**
 * The same change with its adjacent parts joined into one replacement (CodeMirror keeps a range
 * replaced and the text typed right after it, or before it, apart). A person's edit of one stretch
 * is one unit, so that text someone else put in inside the replaced range goes after all of it,
 * not between its parts.
 */
export function joinAdjacent(changes: ChangeSet): ChangeSet {
  const specs: ChangeSpec[] = [];
  let parts = 0;
  changes.iterChanges(() => void parts++, true);
  changes.iterChanges((from, to, _fromB, _toB, insert) => void specs.push({ from, to, insert }));
  return specs.length === parts ? changes : ChangeSet.of(specs, changes.length);
}

/** A change as `{from, to, insert}` against the text before it (sorted, apart): the shape of a ChangeSpec. */
export function editsOf(changes: ChangeSet): TextEdit[] {
  const edits: TextEdit[] = [];
  changes.iterChanges((from, to, _fromB, _toB, inserted) => void edits.push({ from, to, insert: inserted.toString() }));
  return edits;
}

/** Lines `from..to` (1-based, inclusive) of a text. */
export function linesOf(text: Text, from: number, to: number): string[] {
  const lines: string[] = [];
  for (let n = from; n <= to; n++) lines.push(text.line(n).text);
  return lines;
}

/**
 * The character changes from `before` to a text of `lines`: the lines that differ (diffLines, common
 * ends first) diffed by characters inside them. Costs the document's length: for a full text (a
 * reload, a compacted feed) and the rare answers whose text is not what the edits predicted.
 */
export function changesToLines(before: Text, lines: readonly string[], held?: HeldSpan): ChangeSet {
  // One region from the first change to the last: a line that moved is seen as one.
  return changesOfLineOps(before, diffLines(before.toJSON(), lines), held, Infinity);
}

/** The text of `lines` (the empty text is one empty line). */
export function textOfLines(lines: readonly string[]): Text {
  return Text.of(lines.length > 0 ? [...lines] : [""]);
}
