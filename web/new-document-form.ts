/**
 * The start page's "New document" form: a title, "Create document", and "New encrypted document",
 * whose key goes into the new page's link fragment only (docs/encryption.md), unless "Remember on
 * this device" is ticked: then this browser keeps the key too, and the start page lists the document.
 * Without it the form says that the link is the only copy of the key. It goes to the new document's page.
 */
import h from "crelt";
import { createEncryptedDocument, generateDocumentKey, type FolioClient } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import { rememberDocument } from "./prefs.js";

export function newDocumentForm(client: FolioClient): HTMLFormElement {
  const error = h("p", { class: "form-error", role: "alert" });
  const title = h("input", { id: "new-title", name: "title", required: true, maxlength: "255", value: "Untitled outline", autocomplete: "off" });
  const create = h("button", { type: "submit", class: "primary" }, "Create document");
  const encrypted = h("button", { type: "button", class: "secondary new-encrypted" }, "New encrypted document");
  const remember = h("input", { type: "checkbox", id: "remember-key" });
  const warning = h("p", { class: "key-warning", id: "key-warning" }, "Without it, the link of an encrypted document is the only copy of its key: lose the link and nobody can read the document, not even the service.");
  remember.addEventListener("change", () => (warning.hidden = remember.checked));
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
    h("label", { class: "remember-choice" }, remember, h("span", {}, "Remember encrypted documents on this device: the key is then stored in this browser, and the start page lists them.")),
    warning,
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
      .then((created) => {
        if (key !== undefined && remember.checked) rememberDocument(created.id, name, key);
        window.location.assign(`/d/${created.id}${key !== undefined ? `#key=${key}` : ""}`);
      })
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
