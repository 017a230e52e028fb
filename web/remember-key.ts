/**
 * An encrypted document's key on this device (docs/encryption.md#remembered-on-this-device): without
 * the reader's choice the key lives only in the link, and the page says so, with "Remember on this
 * device", which stores the key in this browser's localStorage so that the start page lists the
 * document; "Forget on this device" takes it out again.
 */
import h from "crelt";
import { forgetDocument, keyRemembered, rememberDocument } from "./prefs.js";
import { replace } from "./replace-children.js";

export function rememberKeyNote(doc: { id: string; title: string }, key: string): HTMLElement {
  const note = h("div", { class: "key-note" });
  const render = () => {
    if (keyRemembered(doc.id)) {
      const forget = h("button", { type: "button", class: "link-button" }, "Forget on this device");
      forget.addEventListener("click", () => (forgetDocument(doc.id), render()));
      replace(note, h("p", { class: "muted key-remembered" }, "The key is stored in this browser: the start page lists this document. ", forget));
      return;
    }
    const remember = h("button", { type: "button", class: "link-button" }, "Remember on this device");
    remember.addEventListener("click", () => (rememberDocument(doc.id, doc.title, key), render()));
    replace(
      note,
      h(
        "p",
        { class: "key-warning" },
        "Keep this page's link: it holds the only copy of the key, and without it nobody can read this document, not even the service. ",
        remember,
        " (the key is then stored in this browser).",
      ),
    );
  };
  render();
  return note;
}
