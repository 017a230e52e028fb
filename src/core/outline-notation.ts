/**
 * The outline notation (docs/notation.md): a line is a node and its indentation makes it a child of
 * the nearest less indented line above; a line of white space only is no node; `[ ]` / `[x]` right
 * after the indentation is the node's status box; `#US-<ref>` / `#T-<ref>` on a node line links a
 * tracker ticket. The service stores plain text and knows none of this: the editor, the client
 * library and the export and import (outline-formats.ts) read the text through these functions.
 * Pure: no DOM, no I/O.
 */

export type TicketKind = "story" | "task";

export interface TicketLink {
  kind: TicketKind;
  ref: number;
  /** Character offsets of the `#US-12` token within the line. */
  from: number;
  to: number;
}

export interface OutlineLine {
  /** Indentation width in columns (a tab counts as {@link TAB_WIDTH}). */
  indent: number;
  /** Length of the leading white space in characters. */
  indentLength: number;
  /** The status box, when the node text starts with one. */
  box?: { done: boolean; from: number; to: number };
  /** The first `#US-` / `#T-` token of the line: a line links one ticket. */
  link?: TicketLink;
  /** True for a line of white space only: it is no node. */
  blank: boolean;
}

export const TAB_WIDTH = 4;
const BOX = /^\[( |x|X)\](?=\s|$)/;
const LINK = /(?:^|[^\w#])#(US|T)-([1-9]\d{0,15})(?![\w-])/;

/** The width in columns of a run of white space (a tab counts as {@link TAB_WIDTH}). */
export function indentWidth(whiteSpace: string): number {
  let width = 0;
  for (const char of whiteSpace) width += char === "\t" ? TAB_WIDTH : 1;
  return width;
}

export function parseLine(line: string): OutlineLine {
  const indentLength = line.length - line.trimStart().length;
  const indent = indentWidth(line.slice(0, indentLength));
  const blank = indentLength === line.length;
  const parsed: OutlineLine = { indent, indentLength, blank };
  const rest = line.slice(indentLength);
  const box = BOX.exec(rest);
  if (box) parsed.box = { done: box[1] !== " ", from: indentLength, to: indentLength + 3 };
  const link = LINK.exec(line);
  if (link) {
    const token = `#${link[1]}-${link[2]}`;
    const from = link.index + link[0].length - token.length;
    parsed.link = { kind: link[1] === "US" ? "story" : "task", ref: Number(link[2]), from, to: from + token.length };
  }
  return parsed;
}

/**
 * The depth of every line in the outline: 0 for a node without parent, its parent's depth + 1
 * otherwise (the parent being the nearest node above with a smaller indentation); -1 for a blank line.
 */
export function outlineDepths(lines: readonly string[]): number[] {
  const open: { indent: number; depth: number }[] = [];
  return lines.map((line) => {
    const { indent, blank } = parseLine(line);
    if (blank) return -1;
    while (open.length > 0 && open[open.length - 1]!.indent >= indent) open.pop();
    const depth = open.length === 0 ? 0 : open[open.length - 1]!.depth + 1;
    open.push({ indent, depth });
    return depth;
  });
}

/**
 * The line index of the node's parent: the nearest non-blank line above with a smaller
 * indentation; undefined for a top-level node (or a blank line's nearest).
 */
export function parentLine(lines: readonly string[], index: number): number | undefined {
  const limit = parseLine(lines[index] ?? "").indent;
  for (let k = index - 1; k >= 0; k--) {
    const line = parseLine(lines[k] ?? "");
    if (line.blank || line.indent >= limit) continue;
    return k;
  }
  return undefined;
}

/**
 * The last line (index) of the node at `index` with all its descendants: the lines after it up to
 * the next node that is not more indented than it (blank lines inside count, trailing ones do not).
 */
export function subtreeEnd(lines: readonly string[], index: number): number {
  const own = parseLine(lines[index] ?? "");
  if (own.blank) return index;
  let end = index;
  for (let k = index + 1; k < lines.length; k++) {
    const line = parseLine(lines[k] ?? "");
    if (line.blank) continue;
    if (line.indent <= own.indent) break;
    end = k;
  }
  return end;
}
