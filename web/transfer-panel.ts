/**
 * The Export and import panel (docs/notation.md#export-and-import): Markdown, OPML and text downloads
 * of the text, and, on the edit page, the import of a file (import-form.ts). A plain document whose
 * edits are all saved is exported by the service (the same file its export route gives); an
 * encrypted one, or one with unsaved edits, is converted here from the text on screen, so the service
 * never sees an encrypted document's text.
 */
import h from "crelt";
import { EXPORT_FORMATS, exportLocally, type ExportedFile, type ExportFormat } from "../src/client/index.js";
import { saveFile } from "./download-file.js";
import { messageOf } from "./error-message.js";
import { importForm, type ImportFormOptions } from "./import-form.js";

const LABELS: Record<ExportFormat, string> = { markdown: "Markdown", opml: "OPML", text: "Text" };

export interface TransferOptions {
  /** The document as the page shows it. */
  current: () => { title: string; content: string };
  /** The service's file, when it holds exactly what the page shows (a plain, saved document); else undefined. */
  fromService?: (format: ExportFormat) => Promise<ExportedFile> | undefined;
  /** Offers import (the edit page). */
  importing?: ImportFormOptions;
}

export function transferPanel(options: TransferOptions): { element: HTMLElement } {
  const status = h("p", { class: "panel-status", role: "status" });
  const download = async (format: ExportFormat) => {
    try {
      const file = (await options.fromService?.(format)) ?? exportLocally(format, options.current());
      saveFile(file);
      status.textContent = `Downloaded ${file.fileName}.`;
    } catch (error) {
      status.textContent = `Could not download: ${messageOf(error)}`;
    }
  };
  const buttons = EXPORT_FORMATS.map((format) => {
    const button = h("button", { type: "button", class: "secondary", "aria-label": `Download as ${LABELS[format]}` }, LABELS[format]);
    button.addEventListener("click", () => void download(format));
    return button;
  });
  const element = h(
    "section",
    { class: "panel transfer", "aria-labelledby": "transfer-heading" },
    h("h2", { id: "transfer-heading", tabindex: "-1" }, options.importing ? "Export and import" : "Export"),
    h("h3", {}, "Download"),
    h("div", { class: "transfer-row" }, ...buttons),
    status,
    options.importing ? h("h3", {}, "Import a file") : undefined,
    options.importing ? importForm(options.importing) : undefined,
  );
  return { element };
}
