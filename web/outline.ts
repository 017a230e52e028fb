/**
 * The outline notation's tracker side (docs/notation.md): `&tracker.<slug>` anywhere in the text names
 * the tracker project; `#US-<ref>` / `#T-<ref>` on a node line links it to a story or a task. The
 * line itself (indentation, box, link) is read by src/core/outline-notation.ts, shared with the
 * export and import. Pure: no DOM, no I/O.
 */
import { parentLine, parseLine, type TicketKind, type TicketLink } from "../src/core/outline-notation.js";

export { parentLine, parseLine, TAB_WIDTH, type OutlineLine, type TicketKind, type TicketLink } from "../src/core/outline-notation.js";

const SLUG = /(?:^|[^\w&])&tracker\.([A-Za-z0-9][A-Za-z0-9_-]*)/;
const LINKS_AND_SLUGS = /(?:^|(?<=[^\w#&]))(?:#(?:US|T)-\d+|&tracker\.[A-Za-z0-9][A-Za-z0-9_-]*)(?![\w-])/g;

/** The slug of the first `&tracker.<slug>` of the text, if any. */
export function trackerSlug(text: string): string | undefined {
  return SLUG.exec(text)?.[1];
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
