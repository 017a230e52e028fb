/**
 * The outline notation (docs/editor.md, "The outline notation"): a line is a node and its indentation makes
 * it a child of the nearest less indented line above; `[ ]` / `[x]` right after the indentation is
 * the node's status box; `&tracker.<slug>` anywhere in the text names the tracker project;
 * `#US-<ref>` / `#T-<ref>` on a node line links it to a story or a task. Pure: no DOM, no I/O.
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
const SLUG = /(?:^|[^\w&])&tracker\.([A-Za-z0-9][A-Za-z0-9_-]*)/;
const LINKS_AND_SLUGS = /(?:^|(?<=[^\w#&]))(?:#(?:US|T)-\d+|&tracker\.[A-Za-z0-9][A-Za-z0-9_-]*)(?![\w-])/g;

export function parseLine(line: string): OutlineLine {
  const indentLength = line.length - line.trimStart().length;
  let indent = 0;
  for (let k = 0; k < indentLength; k++) indent += line[k] === "\t" ? TAB_WIDTH : 1;
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

/** The slug of the first `&tracker.<slug>` of the text, if any. */
export function trackerSlug(text: string): string | undefined {
  return SLUG.exec(text)?.[1];
}

/** The line index of the node's parent: the nearest non-blank line above with a smaller indentation. */
export function parentLine(lines: readonly string[], index: number): number | undefined {
  const own = parseLine(lines[index] ?? "");
  const limit = own.indent;
  for (let k = index - 1; k >= 0; k--) {
    const line = parseLine(lines[k] ?? "");
    if (line.blank || line.indent >= limit) continue;
    return k;
  }
  return undefined;
}

/**
 * The story a task created on line `index` belongs to: the nearest ancestor that links a story, or,
 * when no ancestor does, the nearest line above that links one.
 */
export function storyAbove(lines: readonly string[], index: number): { line: number; ref: number } | undefined {
  for (let k = parentLine(lines, index); k !== undefined; k = parentLine(lines, k)) {
    const link = parseLine(lines[k] ?? "").link;
    if (link?.kind === "story") return { line: k, ref: link.ref };
  }
  for (let k = index - 1; k >= 0; k--) {
    const link = parseLine(lines[k] ?? "").link;
    if (link?.kind === "story") return { line: k, ref: link.ref };
  }
  return undefined;
}

/** The node's own words: without indentation, box, ticket links and tracker keywords. */
export function nodeSubject(line: string): string {
  const parsed = parseLine(line);
  const start = parsed.box ? parsed.box.to : parsed.indentLength;
  return line.slice(start).replace(LINKS_AND_SLUGS, " ").replace(/\s+/g, " ").trim();
}

/** The line with `#US-<ref>` / `#T-<ref>` appended (separated by one space). */
export function withLink(line: string, kind: TicketKind, ref: number): string {
  const token = `${kind === "story" ? "#US" : "#T"}-${ref}`;
  const trimmed = line.trimEnd();
  return parseLine(trimmed).blank ? `${trimmed}${token}` : `${trimmed} ${token}`;
}

/** The line with its status box set to `done` (a box is added after the indentation when there is none). */
export function withBox(line: string, done: boolean): string {
  const parsed = parseLine(line);
  const box = done ? "[x]" : "[ ]";
  if (parsed.box) return line.slice(0, parsed.box.from) + box + line.slice(parsed.box.to);
  return `${line.slice(0, parsed.indentLength)}${box} ${line.slice(parsed.indentLength)}`;
}

/** The tracker's web page of a linked ticket. */
export function ticketUrl(trackerWeb: string, slug: string, link: Pick<TicketLink, "kind" | "ref">): string {
  return `${trackerWeb}/project/${encodeURIComponent(slug)}/${link.kind === "story" ? "us" : "task"}/${link.ref}`;
}
