/**
 * The start page: a new document, plain or encrypted (new-document-form.ts), a new document from a
 * file (import-form.ts), and the documents this browser opened recently (recent-documents.ts).
 */
import h from "crelt";
import type { FolioClient } from "../src/client/index.js";
import { importForm } from "./import-form.js";
import { newDocumentForm } from "./new-document-form.js";
import { recentDocumentsList } from "./recent-documents.js";
import { replace } from "./replace-children.js";

export function renderHome(root: HTMLElement, client: FolioClient): void {
  document.title = "Folio";
  replace(
    root,
    h(
      "main",
      { class: "home" },
      h("h1", {}, "Folio"),
      h("p", { class: "lead" }, "Outlines edited together, live. Share a document by its link."),
      newDocumentForm(client),
      h("section", { class: "transfer", "aria-labelledby": "import-heading" }, h("h2", { id: "import-heading" }, "Import a file"), importForm({ wire: client })),
      h("section", { "aria-labelledby": "recent-heading" }, h("h2", { id: "recent-heading" }, "Recently opened"), recentDocumentsList()),
    ),
  );
}
