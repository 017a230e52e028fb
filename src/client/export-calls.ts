/**
 * Export and import for client programs (docs/notation.md#export-and-import): the service's export
 * routes as files, and the same conversions run locally (src/core/outline-formats.ts), which is how
 * an encrypted document is exported or imported without the service ever seeing its text.
 */
import { exportFileName, exportOutline, FORMATS, type ExportFormat } from "../core/outline-formats.js";

export interface ExportOptions {
  /** A version of the document's history; the current one without it. */
  version?: number;
  signal?: AbortSignal;
}

/** A document as a file, ready to save. */
export interface ExportedFile {
  format: ExportFormat;
  /** From the title, as the service's `Content-Disposition` names it. */
  fileName: string;
  /** The media type with its charset. */
  mediaType: string;
  text: string;
}

/** The query string of an export request. */
export function exportQuery(format: ExportFormat, options?: ExportOptions): string {
  return `?format=${format}${options?.version !== undefined ? `&version=${options.version}` : ""}`;
}

/** The file of an export answer: its text, and the name its `Content-Disposition` gives (else "outline"). */
export function exportedFile(format: ExportFormat, answer: { body: unknown; disposition?: string | null }): ExportedFile {
  return { format, fileName: fileNameOf(answer.disposition) ?? exportFileName("", format), mediaType: FORMATS[format].mediaType, text: String(answer.body) };
}

/** A document converted here, never sent anywhere: the export of an encrypted document's plain text. */
export function exportLocally(format: ExportFormat, document: { title: string; content: string }): ExportedFile {
  return { format, fileName: exportFileName(document.title, format), mediaType: FORMATS[format].mediaType, text: exportOutline(format, document) };
}

/** The file name of a `Content-Disposition`: its UTF-8 `filename*` when there is one, else its `filename`. */
export function fileNameOf(disposition: string | null | undefined): string | undefined {
  if (!disposition) return undefined;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended);
    } catch {
      // A malformed encoding: the plain name below serves.
    }
  }
  return /filename="([^"]*)"/i.exec(disposition)?.[1];
}
