/**
 * The document's title on its page: the field and Rename (Enter in the field renames too, and so does
 * leaving the field: a title typed is never silently dropped; Escape puts the saved one back), and the
 * Encrypted mark of an encrypted document. The field and the browser tab's title follow a rename made
 * anywhere (the field only while it is not being edited). A plain document's title also goes into this
 * browser's recent list; an encrypted one's stays out of its storage unless its key is remembered
 * there (remember-key.ts). The title is also the page's heading, for assistive technology.
 */
import h from "crelt";
import type { LiveDocument } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import { keyRemembered, rememberDocument } from "./prefs.js";

export function titleRow(doc: LiveDocument, options: { encrypted: boolean; say: (text: string) => void }): HTMLElement {
  const { encrypted, say } = options;
  const heading = h("h1", { class: "visually-hidden" });
  const named = (title: string) => {
    document.title = `${title} · Folio`;
    heading.textContent = title;
    if (!encrypted || keyRemembered(doc.id)) rememberDocument(doc.id, title);
  };
  named(doc.title);
  // Sealed, an encrypted title must fit the service's 255 characters: its own text holds 130 bytes (docs/encryption.md).
  const title = h("input", { id: "doc-title", class: "title-input", value: doc.title, maxlength: encrypted ? "130" : "255", "aria-label": "Document title", autocomplete: "off" });
  const rename = h("button", { type: "button", class: "secondary" }, "Rename");
  rename.addEventListener("click", () => {
    const next = title.value.trim();
    if (next === "") title.value = doc.title;
    if (next === "" || next === doc.title) return;
    rename.disabled = true;
    doc
      .rename(next)
      .then(() => say("Renamed."))
      .catch((error: unknown) => say(`Could not rename: ${messageOf(error)}`))
      .finally(() => (rename.disabled = false));
  });
  title.addEventListener("keydown", (event) => {
    if (event.key === "Enter") rename.click();
    if (event.key === "Escape") title.value = doc.title;
  });
  title.addEventListener("blur", () => rename.click());
  doc.on("title", (next) => {
    if (document.activeElement !== title) title.value = next;
    named(next);
  });
  const mark = encrypted ? h("span", { class: "encrypted-mark", title: "Encrypted in this browser: the service stores only ciphertext" }, "Encrypted") : undefined;
  return h("div", { class: "title-row" }, heading, title, rename, mark);
}
