/**
 * The start page's "New document" form: a title, "Create document", and "New encrypted document",
 * whose key goes into the new page's link fragment only (docs/encryption.md). It goes to the new
 * document's page.
 */
import h from "crelt";
import { createEncryptedDocument, generateDocumentKey, type FolioClient } from "../src/client/index.js";
import { messageOf } from "./error-message.js";

export function newDocumentForm(client: FolioClient): HTMLFormElement {
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
  return form;
}
