/** The start page: a new document (plain or encrypted), and the documents this browser opened recently. */
import h from "crelt";
import { createEncryptedDocument, generateDocumentKey, type FolioClient } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import { replace } from "./replace-children.js";
import { forgetDocument, recentDocuments } from "./prefs.js";

export function renderHome(root: HTMLElement, client: FolioClient): void {
  document.title = "Folio";
  const error = h("p", { class: "form-error", role: "alert" });
  const title = h("input", { id: "new-title", name: "title", required: true, maxlength: "255", value: "Untitled outline", autocomplete: "off" });
  const create = h("button", { type: "submit", class: "primary" }, "Create document");
  const encrypted = h("button", { type: "button", class: "secondary new-encrypted" }, "New encrypted document");
  const form = h(
    "form",
    { class: "new-document", "aria-labelledby": "new-heading" },
    h("h2", { id: "new-heading" }, "New document"),
    h("label", { for: "new-title" }, "Title"),
    h("div", { class: "row" }, title, create),
    h(
      "p",
      { class: "encrypted-choice" },
      encrypted,
      h("span", { class: "muted" }, " Encrypted in this browser: the service stores only ciphertext, and the key is part of the link (titles up to 130 bytes)."),
    ),
    error,
  );
  /** Creates the document and goes to its page; an encrypted one's key goes into the link's fragment only (docs/encryption.md). */
  const start = (withKey: boolean) => {
    const name = title.value.trim();
    if (name === "") {
      error.textContent = "A title needs at least one character that is not a space.";
      return;
    }
    create.disabled = encrypted.disabled = true;
    error.textContent = "";
    const key = withKey ? generateDocumentKey() : undefined;
    const creating = key !== undefined ? createEncryptedDocument(client, { title: name, content: "" }, key) : client.createDocument({ title: name, content: "" });
    creating
      .then((created) => window.location.assign(`/d/${created.id}${key !== undefined ? `#key=${key}` : ""}`))
      .catch((failure: unknown) => {
        error.textContent = `Could not create the document: ${messageOf(failure)}`;
        create.disabled = encrypted.disabled = false;
      });
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    start(false);
  });
  encrypted.addEventListener("click", () => start(true));

  const list = h("ul", { class: "recent-list" });
  const renderRecent = () => {
    const recent = recentDocuments();
    if (recent.length === 0) {
      replace(list, h("li", { class: "muted" }, "No documents opened in this browser yet. Open a shared link, or create one."));
      return;
    }
    replace(
      list,
      ...recent.map((entry) =>
        h(
          "li",
          {},
          h("a", { href: `/d/${entry.id}` }, entry.title || "(untitled)"),
          h("time", { datetime: entry.openedAt, class: "muted" }, new Date(entry.openedAt).toLocaleString()),
          h("button", { type: "button", class: "link-button", "aria-label": `Forget ${entry.title}`, onclick: () => (forgetDocument(entry.id), renderRecent()) }, "Forget"),
        ),
      ),
    );
  };
  renderRecent();

  replace(
    root,
    h(
      "main",
      { class: "home" },
      h("h1", {}, "Folio"),
      h("p", { class: "lead" }, "Outlines edited together, live. Share a document by its link."),
      form,
      h("section", { "aria-labelledby": "recent-heading" }, h("h2", { id: "recent-heading" }, "Recently opened"), list),
    ),
  );
}
