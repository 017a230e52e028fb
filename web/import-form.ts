/**
 * Importing a Markdown, OPML or text file (docs/notation.md#export-and-import): the file is read and
 * converted in this browser (src/core/outline-formats.ts), then becomes a new document, plain or
 * encrypted (converted and sealed here: the service never sees the text), or, on a document's page,
 * goes into the open document as one edit. A file that cannot be read says why.
 */
import h from "crelt";
import { createEncryptedDocument, DEFAULT_IMPORT_LIMITS, generateDocumentKey, importFormatOf, importOutline, MAX_TITLE_BYTES, type FolioClient } from "../src/client/index.js";
import { messageOf } from "./error-message.js";

export interface ImportFormOptions {
  /** The service's client, without a key: a new document is made through it. */
  wire: FolioClient;
  /** Puts the imported text into the open document; without it only new documents are offered. */
  insert?: (text: string) => void;
}

/** The title of a new document made from a file: the file's own title, else its name without the ending. */
function titleOf(fileName: string, title: string | undefined, encrypted: boolean): string {
  const name = (title ?? fileName.replace(/\.[^.]*$/, "")).trim() || "Imported outline";
  const limited = [...name].slice(0, 255).join("");
  if (!encrypted) return limited;
  let fitted = "";
  for (const char of limited) {
    if (new TextEncoder().encode(fitted + char).length > MAX_TITLE_BYTES) break;
    fitted += char;
  }
  return fitted;
}

export function importForm(options: ImportFormOptions): HTMLElement {
  const id = `import-file-${Math.random().toString(36).slice(2, 8)}`;
  const input = h("input", { type: "file", id, accept: ".md,.markdown,.opml,.xml,.txt,.text,text/markdown,text/plain,text/x-opml,application/xml" });
  const status = h("p", { class: "panel-status", role: "status" });
  const actions: HTMLButtonElement[] = [];
  const action = (label: string, run: (text: string, title: string | undefined, fileName: string) => Promise<void> | void) => {
    const button = h("button", { type: "button", class: "secondary" }, label);
    button.addEventListener("click", () => void read(run));
    actions.push(button);
    return button;
  };
  const read = async (run: (text: string, title: string | undefined, fileName: string) => Promise<void> | void) => {
    const file = input.files?.[0];
    if (!file) {
      status.textContent = "Choose a file first.";
      return;
    }
    if (file.size > DEFAULT_IMPORT_LIMITS.maxInputChars) {
      status.textContent = `Could not import ${file.name}: the file is larger than ${DEFAULT_IMPORT_LIMITS.maxInputChars.toLocaleString("en")} bytes.`;
      return;
    }
    for (const button of actions) button.disabled = true;
    try {
      const input = await file.text();
      const result = importOutline(importFormatOf(file.name, input), input);
      if (!result.ok) {
        status.textContent = `Could not import ${file.name}: ${result.problem}.`;
        return;
      }
      await run(result.text, result.title, file.name);
      status.textContent = `Imported ${file.name}.`;
    } catch (error) {
      status.textContent = `Could not import ${file.name}: ${messageOf(error)}`;
    } finally {
      for (const button of actions) button.disabled = false;
    }
  };
  const create = (encrypted: boolean) => async (text: string, title: string | undefined, fileName: string) => {
    const key = encrypted ? generateDocumentKey() : undefined;
    const body = { title: titleOf(fileName, title, encrypted), content: text };
    const created = key !== undefined ? await createEncryptedDocument(options.wire, body, key) : await options.wire.createDocument(body);
    window.location.assign(`/d/${created.id}${key !== undefined ? `#key=${key}` : ""}`);
  };
  return h(
    "div",
    { class: "import-form" },
    h("label", { for: id }, "A Markdown, OPML or text file"),
    h("div", { class: "transfer-row" }, input),
    h(
      "div",
      { class: "transfer-row" },
      options.insert ? action("Insert after the cursor's node", (text) => options.insert?.(text)) : undefined,
      action("As a new document", create(false)),
      action("As a new encrypted document", create(true)),
    ),
    status,
  );
}
