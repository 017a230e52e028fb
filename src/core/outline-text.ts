/**
 * What every import and export of an outline shares (docs/notation.md#export-and-import): line
 * endings as the files bring them, the limits an import keeps to, its answer as a value, and the
 * canonical form that a round trip through Markdown or OPML gives back. Pure: no DOM, no I/O.
 */
import { outlineDepths, parseLine } from "./outline-notation.js";

/** An import's answer: the document's text (and a title when the file names one), or why not. */
export type ImportResult = { ok: true; text: string; title?: string } | { ok: false; problem: string };

/** Bounds of an import: a hostile file gets a clear answer, never a hang or a crash. */
export interface ImportLimits {
  /** The longest file read, in characters. */
  maxInputChars: number;
  /** The longest text an import may produce, in characters (indentation makes it longer than the file). */
  maxTextChars: number;
  /** The deepest nesting of a file (OPML elements, Markdown list levels). */
  maxDepth: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = { maxInputChars: 10 * 1024 * 1024, maxTextChars: 5 * 1024 * 1024, maxDepth: 1000 };

/** One level of nesting in every text an import writes and in the canonical form. */
export const INDENT_UNIT = "  ";

/**
 * Line endings as files bring them: a byte order mark goes, and every run of "\r" before a line
 * break or at the end is dropped ("\r\n" becomes "\n"); a "\r" inside a line stays.
 */
export function normalizeFileText(text: string): string {
  return text.replace(/^\uFEFF/, "").replace(/\r+(?=\n|$)/g, "");
}

/** A file's lines: its text normalized, without the one line break that ends a file. */
export function fileLines(text: string): string[] {
  return normalizeFileText(text).replace(/\n$/, "").split("\n");
}

/**
 * The canonical form of a text as an outline: each node indented by {@link INDENT_UNIT} per level of
 * depth, blank lines empty, line endings normalized. Markdown and OPML carry the outline, not the
 * spaces: a round trip through either gives back this form, and a text in it unchanged.
 */
export function canonicalOutline(text: string): string {
  const lines = normalizeFileText(text).split("\n");
  const depths = outlineDepths(lines);
  return lines.map((line, k) => (depths[k]! < 0 ? "" : INDENT_UNIT.repeat(depths[k]!) + line.slice(parseLine(line).indentLength))).join("\n");
}

/** Collects an import's lines, refusing a text longer than the limit before it is built. */
export class OutlineWriter {
  private readonly lines: string[] = [];
  private length = 0;
  private tooLong = false;

  constructor(private readonly maxChars: number) {}

  /** Adds a node line at `depth`, or a blank line for empty content. False once the text is too long. */
  add(depth: number, content: string): boolean {
    if (this.tooLong) return false;
    this.length += (content === "" ? 0 : INDENT_UNIT.length * depth + content.length) + 1;
    if (this.length - 1 > this.maxChars) {
      this.tooLong = true;
      return false;
    }
    this.lines.push(content === "" ? "" : INDENT_UNIT.repeat(depth) + content);
    return true;
  }

  result(title?: string): ImportResult {
    if (this.tooLong) return { ok: false, problem: `the imported text would be longer than ${this.maxChars.toLocaleString("en")} characters` };
    return { ok: true, text: this.lines.join("\n"), ...(title !== undefined ? { title } : {}) };
  }
}
