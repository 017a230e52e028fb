/**
 * An outline as OPML 2.0 and back (docs/notation.md#opml), in the conventions of Workflowy and
 * Dynalist: a node is an `<outline text="…">` nested as the outline nests; a box is
 * `checkbox="true"` (Dynalist), done also `complete="true"` (Dynalist) and `_complete="true"`
 * (Workflowy); a `_note` comes in as child lines. Parsing is @rgrove/parse-xml's (no DTD, no entity
 * but XML's five): a document type declaration is refused before parsing, the nesting is measured
 * first, and the text it gives is bounded. Pure: no DOM, no I/O.
 */
import { parseXml, XmlElement, XmlError, XmlText } from "@rgrove/parse-xml";
import { outlineDepths, parseLine } from "./outline-notation.js";
import { DEFAULT_IMPORT_LIMITS, normalizeFileText, OutlineWriter, type ImportLimits, type ImportResult } from "./outline-text.js";
import { escapeXmlAttribute, escapeXmlText, xmlDepth } from "./xml-text.js";

/** A box the attributes carry: `[ ] ` or `[x] ` with text after it (any other spelling stays in the text). */
const ATTRIBUTE_BOX = /^\[( |x)\] (?=\S)/;

/** The text as an OPML 2.0 document titled `title`, ending with a line break. */
export function outlineToOpml(title: string, text: string): string {
  const lines = normalizeFileText(text).split("\n");
  const depths = outlineDepths(lines);
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', '<opml version="2.0">', "  <head>", `    <title>${escapeXmlText(title)}</title>`, "  </head>", "  <body>"];
  const open: number[] = [];
  // A blank line is an outline without text, placed at the depth of the node after it.
  const placed = [...depths];
  for (let k = placed.length - 1, next = 0; k >= 0; k--) {
    if (placed[k]! < 0) placed[k] = next;
    next = placed[k]!;
  }
  lines.forEach((line, k) => {
    const depth = placed[k]!;
    for (; open.length > depth; open.pop()) out.push(`${pad(open.length + 1)}</outline>`);
    const hasChildren = (placed[k + 1] ?? -1) > depth;
    const attributes = depths[k]! < 0 ? ' text=""' : outlineAttributes(line.slice(parseLine(line).indentLength));
    out.push(`${pad(depth + 2)}<outline${attributes}${hasChildren ? ">" : "/>"}`);
    if (hasChildren) open.push(depth);
  });
  for (; open.length > 0; open.pop()) out.push(`${pad(open.length + 1)}</outline>`);
  out.push("  </body>", "</opml>");
  return `${out.join("\n")}\n`;
}

function pad(level: number): string {
  return "  ".repeat(level);
}

function outlineAttributes(content: string): string {
  const box = ATTRIBUTE_BOX.exec(content);
  if (!box) return ` text="${escapeXmlAttribute(content)}"`;
  const text = ` text="${escapeXmlAttribute(content.slice(box[0].length))}"`;
  return box[1] === "x" ? `${text} checkbox="true" complete="true" _complete="true"` : `${text} checkbox="true"`;
}

/** An OPML file as an outline, and its title; `outlineToOpml`'s output comes back as its canonical text. */
export function opmlToOutline(xml: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): ImportResult {
  if (xml.length > limits.maxInputChars) return { ok: false, problem: `the file is longer than ${limits.maxInputChars.toLocaleString("en")} characters` };
  if (/<!DOCTYPE/i.test(xml)) return { ok: false, problem: "the file declares a document type (<!DOCTYPE>), which OPML never needs and which can declare entities: it is not read" };
  // The parser descends recursively: the nesting is bounded before it runs.
  if (xmlDepth(xml, limits.maxDepth + 3) > limits.maxDepth + 3) return { ok: false, problem: `the file nests deeper than ${limits.maxDepth} levels` };
  let root: XmlElement | undefined;
  try {
    root = parseXml(normalizeFileText(xml)).root ?? undefined;
  } catch (error) {
    if (!(error instanceof XmlError)) throw error;
    return { ok: false, problem: `the file is not well-formed XML: ${error.message.split("\n")[0]}` };
  }
  if (root?.name !== "opml") return { ok: false, problem: `the file is not OPML: its root element is <${root?.name ?? "none"}>, not <opml>` };
  const body = childElements(root, "body")[0];
  if (!body) return { ok: false, problem: "the file is not OPML: it has no <body>" };
  const title = textOf(childElements(root, "head")[0] && childElements(childElements(root, "head")[0]!, "title")[0]).trim();
  const out = new OutlineWriter(limits.maxTextChars);
  // Depth first, in document order, without recursion: each entry an outline and its depth.
  const stack = childElements(body, "outline").reverse().map((element) => ({ element, depth: 0 }));
  while (stack.length > 0) {
    const { element, depth } = stack.pop()!;
    const [first = "", ...more] = (element.attributes.text ?? "").split("\n");
    const line = nodeLine(first.trim() === "" ? "" : first.trimStart(), element.attributes);
    const children = childElements(element, "outline");
    // An outline without text has no node: a blank line, or its children take its place.
    const childDepth = line === "" ? depth : depth + 1;
    if (line !== "" || children.length === 0) {
      if (!out.add(depth, line)) break;
    }
    const notes = [...more, ...(element.attributes._note !== undefined ? element.attributes._note.split("\n") : [])];
    if (!notes.every((note) => out.add(childDepth, note.trimStart()))) break;
    for (let k = children.length - 1; k >= 0; k--) stack.push({ element: children[k]!, depth: childDepth });
  }
  const result = out.result(title !== "" ? title : undefined);
  return result.ok ? { ...result, text: normalizeFileText(result.text) } : result;
}

/** The node's line: the text, with the box its attributes give. */
function nodeLine(text: string, attributes: Record<string, string>): string {
  const done = attributes.complete === "true" || attributes._complete === "true";
  if (!done && attributes.checkbox !== "true") return text;
  const box = done ? "[x]" : "[ ]";
  return text === "" ? box : `${box} ${text}`;
}

function childElements(parent: XmlElement, name: string): XmlElement[] {
  return parent.children.filter((child): child is XmlElement => child instanceof XmlElement && child.name === name);
}

function textOf(element: XmlElement | undefined): string {
  return element ? element.children.map((child) => (child instanceof XmlText ? child.text : "")).join("") : "";
}
