/**
 * An outline as Markdown and back (docs/notation.md#markdown). Out: every node a `- ` list item
 * nested by two spaces per level, its text as it is (a `[ ]` / `[x]` box makes it a GFM task item),
 * blank lines kept. In: list items of any marker and indentation nest by their column, headings
 * nest what follows them, a paragraph line becomes a child of the item it continues, a fenced block
 * is kept line by line. Pure: no DOM, no I/O.
 */
import { outlineDepths, parseLine } from "./outline-notation.js";
import { DEFAULT_IMPORT_LIMITS, fileLines, INDENT_UNIT, OutlineWriter, normalizeFileText, type ImportLimits, type ImportResult } from "./outline-text.js";

const BULLET = /^[-*+](?=[ \t]|$)/;
const ORDERED = /^\d{1,9}[.)](?=[ \t]|$)/;
const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^(`{3,}|~{3,})/;

/** The text as a Markdown list: one item per node, ending with a line break. */
export function outlineToMarkdown(text: string): string {
  const lines = normalizeFileText(text).split("\n");
  const depths = outlineDepths(lines);
  return `${lines.map((line, k) => (depths[k]! < 0 ? "" : `${INDENT_UNIT.repeat(depths[k]!)}- ${line.slice(parseLine(line).indentLength)}`)).join("\n")}\n`;
}

interface OpenItem {
  /** The column of the item's marker. */
  column: number;
  depth: number;
}

/** A Markdown file as an outline; `outlineToMarkdown`'s output comes back as its canonical text. */
export function markdownToOutline(markdown: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): ImportResult {
  if (markdown.length > limits.maxInputChars) return { ok: false, problem: `the file is longer than ${limits.maxInputChars.toLocaleString("en")} characters` };
  const out = new OutlineWriter(limits.maxTextChars);
  const headings: number[] = [];
  let items: OpenItem[] = [];
  let fence: { marker: string; depth: number } | undefined;
  let afterBlank = true;
  for (const line of fileLines(markdown)) {
    const { indent, indentLength, blank } = parseLine(line);
    const rest = line.slice(indentLength);
    let depth: number;
    let content = rest;
    if (fence) {
      // A fenced block keeps its lines as they are, beside its opening fence.
      const closing = rest.trimEnd();
      if (!out.add(fence.depth, blank ? "" : line)) break;
      if (closing.length >= fence.marker.length && closing === fence.marker[0]!.repeat(closing.length)) fence = undefined;
      continue;
    }
    if (blank) {
      afterBlank = true;
      if (!out.add(0, "")) break;
      continue;
    }
    const bullet = BULLET.exec(rest) ?? ORDERED.exec(rest);
    // A heading not inside a list item closes the lists and nests what follows it.
    const heading = indent < 4 && indent <= (items[0]?.column ?? 0) ? HEADING.exec(rest) : null;
    if (bullet) {
      while (items.length > 0 && items[items.length - 1]!.column >= indent) items.pop();
      depth = headings.length + items.length;
      items.push({ column: indent, depth });
      // A bullet's text follows its marker; an ordered item keeps its number (the outline has none).
      content = BULLET.test(rest) ? rest.slice(1).trimStart() : rest;
    } else if (heading) {
      items = [];
      const level = heading[1]!.length;
      while (headings.length > 0 && headings[headings.length - 1]! >= level) headings.pop();
      depth = headings.length;
      headings.push(level);
      content = heading[2] ?? "";
      if (content === "") content = rest;
    } else {
      const holder = itemHolding(items, indent, afterBlank);
      if (!holder) items = [];
      depth = holder ? holder.depth + 1 : headings.length;
      const opening = FENCE.exec(rest);
      if (opening) fence = { marker: opening[1]!, depth };
    }
    if (depth > limits.maxDepth) return { ok: false, problem: `the file nests deeper than ${limits.maxDepth} levels` };
    if (!out.add(depth, content)) break;
    afterBlank = false;
  }
  return out.result();
}

/**
 * The list item a paragraph line belongs to: the innermost open item left of it, or, for a line not
 * indented past any item, the last item when the line continues its paragraph (no blank line
 * between). Items right of the line are closed.
 */
function itemHolding(items: OpenItem[], indent: number, afterBlank: boolean): OpenItem | undefined {
  const last = items[items.length - 1];
  if (!last) return undefined;
  if (indent <= items[0]!.column) return afterBlank ? undefined : last;
  while (items.length > 0 && items[items.length - 1]!.column >= indent) items.pop();
  return items[items.length - 1];
}
