/**
 * "Change key" on an encrypted document's page (docs/encryption.md, "Changing the key"): once
 * everything is sent, the document is written again under a new key in one version, its read-only
 * link (if it has one) replaced by a new one, and the page reopened on its new link. Whoever holds
 * only the old links can no longer open it. The text cannot be changed meanwhile: an edit typed
 * between the read and the write would be sealed under the old key and then not open with the new. When someone else changes the key, this page's key no
 * longer opens the document (its title no longer opens): `lost` is called.
 */
import h from "crelt";
import { changeDocumentKey, FolioError, generateDocumentKey, UNREADABLE_TITLE, type FolioClient, type LiveDocument } from "../src/client/index.js";
import { messageOf } from "./error-message.js";

export function changeKeyButton(options: {
  wire: FolioClient;
  doc: LiveDocument;
  key: string;
  say: (text: string) => void;
  lost: () => void;
  setReadOnly: (readOnly: boolean) => void;
}): HTMLButtonElement {
  const { wire, doc, key, say, setReadOnly } = options;
  /** While this page changes the key, a title its old key no longer opens is no sign of a key lost. */
  let changing = false;
  const button = h("button", { type: "button", class: "secondary change-key", title: "Encrypt the document under a new key and replace the read-only link: the old links stop opening it" }, "Change key");
  button.addEventListener("click", () => {
    button.disabled = true;
    changing = true;
    setReadOnly(true);
    say("Changing the key…");
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
        changing = false;
        button.disabled = false;
        setReadOnly(doc.deleted);
        say(`Could not change the key: ${messageOf(error)}`);
      });
  });
  doc.on("title", (title) => {
    if (title === UNREADABLE_TITLE && !changing) options.lost();
  });
  return button;
}
