/**
 * The formats a document is exported in and imported from (docs/notation.md#export-and-import), in one
 * table shared by the service's export route, the client library and the page: the media type, the
 * file name, and the conversion each way. Pure: no DOM, no I/O.
 */
import { markdownToOutline, outlineToMarkdown } from "./outline-markdown.js";
import { opmlToOutline, outlineToOpml } from "./outline-opml.js";
import { DEFAULT_IMPORT_LIMITS, fileLines, type ImportLimits, type ImportResult } from "./outline-text.js";

export const EXPORT_FORMATS = ["markdown", "opml", "text"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

interface FormatSpec {
  /** The media type of an export, UTF-8. */
  mediaType: string;
  extension: string;
  /** The file name endings an import takes as this format. */
  endings: readonly string[];
  write(title: string, text: string): string;
  read(input: string, limits: ImportLimits): ImportResult;
}

export const FORMATS: Readonly<Record<ExportFormat, FormatSpec>> = {
  markdown: {
    mediaType: "text/markdown; charset=utf-8",
    extension: "md",
    endings: [".md", ".markdown", ".mdown", ".mkd"],
    write: (_title, text) => outlineToMarkdown(text),
    read: markdownToOutline,
  },
  opml: {
    mediaType: "text/x-opml; charset=utf-8",
    extension: "opml",
    endings: [".opml", ".xml"],
    write: outlineToOpml,
    read: opmlToOutline,
  },
  text: {
    mediaType: "text/plain; charset=utf-8",
    extension: "txt",
    endings: [".txt", ".text"],
    // The text as it is, ending with a line break as text files do; an import takes that one away again.
    write: (_title, text) => `${text}\n`,
    read: (input, limits) => {
      if (input.length > limits.maxInputChars) return { ok: false, problem: `the file is longer than ${limits.maxInputChars.toLocaleString("en")} characters` };
      const text = fileLines(input).join("\n");
      return text.length > limits.maxTextChars ? { ok: false, problem: `the imported text would be longer than ${limits.maxTextChars.toLocaleString("en")} characters` } : { ok: true, text };
    },
  },
};

export function isExportFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

/** The document as a file of `format`. */
export function exportOutline(format: ExportFormat, document: { title: string; content: string }): string {
  return FORMATS[format].write(document.title, document.content);
}

/**
 * The format of a file to import: by its name's ending, else by its first characters (an XML
 * declaration or `<opml` is OPML; anything else is Markdown, whose reading keeps plain text's lines).
 */
export function importFormatOf(fileName: string, input: string): ExportFormat {
  const name = fileName.toLowerCase();
  for (const format of EXPORT_FORMATS) if (FORMATS[format].endings.some((ending) => name.endsWith(ending))) return format;
  return /^\uFEFF?\s*<(\?xml|opml)/i.test(input.slice(0, 200)) ? "opml" : "markdown";
}

/** A file's text as a document's text (and the title an OPML file names), or why it cannot be read. */
export function importOutline(format: ExportFormat, input: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): ImportResult {
  return FORMATS[format].read(input, limits);
}

/**
 * The file name of an export: the title without the characters file systems refuse (and without
 * leading dots or trailing spaces), at most 120 characters, or "outline" when nothing is left,
 * with the format's ending.
 */
export function exportFileName(title: string, format: ExportFormat): string {
  // eslint-disable-next-line no-control-regex -- control characters are among what file names refuse
  const cleaned = [...title.replace(/[\u0000-\u001F\u007F/\\:*?"<>|]+/g, " ").replace(/\s+/g, " ").trim().replace(/^\.+/, "")]
    .slice(0, 120)
    .join("")
    .trim();
  return `${cleaned === "" ? "outline" : cleaned}.${FORMATS[format].extension}`;
}
