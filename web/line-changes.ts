/**
 * Turns the line ops of a remote change (sorted, against the previous text, as the client hands them
 * over) into character changes on that text, so that the editor can dispatch them as one transaction
 * and map the local cursor and selection through them. The line model is the shared one (src/core):
 * a text is its lines joined by "\n". Pure: no DOM, no editor.
 */
import type { LineOperation } from "../src/core/index.js";
import { charChanges, type CharChange } from "./char-diff.js";

export type { CharChange };

interface Span {
  index: number;
  count: number;
  lines: string[];
}

/** Adjacent ops become one span, so that no two character changes overlap (see toCharChanges). */
function spans(ops: readonly LineOperation[]): Span[] {
  const out: Span[] = [];
  for (const op of ops) {
    const count = op.op === "insert" ? 0 : (op.count ?? 0);
    const lines = op.op === "delete" ? [] : (op.lines ?? []);
    if (count === 0 && lines.length === 0) continue;
    const last = out.at(-1);
    if (last && last.index + last.count === op.index) {
      last.count += count;
      last.lines.push(...lines);
    } else {
      out.push({ index: op.index, count, lines: [...lines] });
    }
  }
  return out;
}

/**
 * The character changes for `ops` on `previous` (whose lines the ops address). A span that reaches
 * the end of the text takes the line break before it instead of the one after it, since the last
 * line has none; merging adjacent ops first keeps that break out of every other change.
 */
export function toCharChanges(previous: string, ops: readonly LineOperation[]): CharChange[] {
  const starts = [0];
  for (let at = previous.indexOf("\n"); at !== -1; at = previous.indexOf("\n", at + 1)) starts.push(at + 1);
  const lineCount = starts.length;
  const end = previous.length;
  const changes: CharChange[] = [];
  for (const span of spans(ops)) {
    const stop = span.index + span.count;
    if (stop < lineCount) {
      const at = starts[span.index] ?? end;
      const insert = span.lines.map((line) => `${line}\n`).join("");
      changes.push({ from: at, to: starts[stop] ?? end, insert });
    } else if (span.index === 0) {
      changes.push({ from: 0, to: end, insert: span.lines.join("\n") });
    } else {
      const from = (starts[span.index] ?? end + 1) - 1;
      changes.push({ from, to: end, insert: span.lines.map((line) => `\n${line}`).join("") });
    }
  }
  return changes;
}

/**
 * The same changes cut down to the characters that differ (web/char-diff.ts): a co-author's word
 * typed into the line where the cursor is becomes an insertion of that word, not a new line, so the
 * cursor stays where the person types.
 */
export function toMinimalChanges(previous: string, ops: readonly LineOperation[]): CharChange[] {
  return toCharChanges(previous, ops).flatMap((change) => charChanges(previous.slice(change.from, change.to), change.insert, change.from));
}

/** Applies character changes (sorted, against one text) to that text; for tests and checks. */
export function applyCharChanges(text: string, changes: readonly CharChange[]): string {
  let out = "";
  let cursor = 0;
  for (const change of changes) {
    out += text.slice(cursor, change.from) + change.insert;
    cursor = change.to;
  }
  return out + text.slice(cursor);
}
