/**
 * "Change key" on an encrypted document's page (docs/encryption.md, "Changing the key"): once
 * everything is sent, the document is written again under a new key in one version, its read-only
 * link (if it has one) replaced by a new one, and the page reopened on its new link. Whoever holds
 * only the old links can no longer open it.
 */
import h from "crelt";
import { changeDocumentKey, FolioError, generateDocumentKey, UNREADABLE_TITLE, type FolioClient, type LiveDocument } from "../src/client/index.js";
import { messageOf } from "./error-message.js";

export function changeKeyButton(wire: FolioClient, doc: LiveDocument, key: string, message: HTMLElement, changing: { now: boolean }): HTMLButtonElement {
  const button = h("button", { type: "button", class: "secondary change-key", title: "Encrypt the document under a new key and replace the read-only link: the old links stop opening it" }, "Change key");
  button.addEventListener("click", () => {
    button.disabled = true;
    changing.now = true;
    message.textContent = "Changing the key…";
    const newKey = generateDocumentKey();
    doc
      .whenSynced(10_000)
      .then(() => changeDocumentKey(wire, doc.id, key, newKey, doc.version))
      .then(() =>
        wire.read.link(doc.id).then(
          () => wire.read.createLink(doc.id),
          (error: unknown) => {
            if (!(error instanceof FolioError && error.status === 404)) throw error;
          },
        ),
      )
      .then(() => {
        doc.close();
        // The new key goes into this page's address only (its fragment), and the page opens with it.
        window.history.replaceState(null, "", `/d/${doc.id}#key=${newKey}`);
        window.location.reload();
      })
      .catch((error: unknown) => {
        changing.now = false;
        button.disabled = false;
        message.textContent = `Could not change the key: ${messageOf(error)}`;
      });
  });
  return button;
}

/** Calls `lost` when the document's title no longer opens with this page's key (someone changed the key). */
export function watchKey(doc: LiveDocument, changing: { now: boolean }, lost: () => void): void {
  doc.on("title", (title) => {
    if (title === UNREADABLE_TITLE && !changing.now) lost();
  });
}
