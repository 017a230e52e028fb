/** The start page: a new document, and the documents this browser opened recently. */
import type { FolioClient } from "../src/client/index.js";
import { h, messageOf, replace } from "./dom.js";
import { forgetDocument, recentDocuments } from "./prefs.js";

export function renderHome(root: HTMLElement, client: FolioClient): void {
  document.title = "Folio";
  const error = h("p", { class: "form-error", role: "alert" });
  const title = h("input", { id: "new-title", name: "title", required: true, maxlength: 255, value: "Untitled outline", autocomplete: "off" });
  const create = h("button", { type: "submit", class: "primary" }, "Create document");
  const form = h(
    "form",
    { class: "new-document", "aria-labelledby": "new-heading" },
    h("h2", { id: "new-heading" }, "New document"),
    h("label", { for: "new-title" }, "Title"),
    h("div", { class: "row" }, title, create),
    error,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const name = title.value.trim();
    if (name === "") {
      error.textContent = "A title needs at least one character that is not a space.";
      return;
    }
    create.disabled = true;
    error.textContent = "";
    client
      .createDocument({ title: name, content: "" })
      .then((created) => window.location.assign(`/d/${created.id}`))
      .catch((failure: unknown) => {
        error.textContent = `Could not create the document: ${messageOf(failure)}`;
        create.disabled = false;
      });
  });

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
