/**
 * "Change key" on an encrypted document's page (docs/encryption.md, "Changing the key"): once
 * everything is sent, the document is written again under a new key in one version, its read-only
 * link (if it has one) replaced by a new one, and the page reopened on its new link. Whoever holds
 * only the old links can no longer open it. The text cannot be changed meanwhile: an edit typed
 * between the read and the write would be sealed under the old key and then not open with the new.
 * The new key is never lost once the document may be under it: it goes into the page's address as
 * soon as the write is answered, and when the write's answer does not arrive (it may have been made
 * all the same) the page asks whether the new key opens the document before it gives up. When
 * someone else changes the key, this page's key no longer opens the document (the live document
 * says its key is lost, or its title no longer opens): `lost` is called. Since every other link stops
 * working, the button first asks (a modal dialog whose default is Cancel).
 */
import h from "crelt";
import { changeDocumentKey, FolioError, generateDocumentKey, UNREADABLE_TITLE, withDocumentKey, type FolioClient, type LiveDocument } from "../src/client/index.js";
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
  const confirm = confirmDialog(() => change());
  button.addEventListener("click", () => confirm.ask());
  const change = () => {
    button.disabled = true;
    changing = true;
    setReadOnly(true);
    say("Changing the key…");
    const newKey = generateDocumentKey();
    /** The document is under the new key: it goes into this page's address (its fragment only, nothing is sent), then the read link is replaced and the page reopens. */
    const written = () => {
      doc.close();
      window.history.replaceState(null, "", `/d/${doc.id}#key=${newKey}`);
      return replaceReadLink(wire, doc.id).then(
        () => window.location.reload(),
        (error: unknown) =>
          say(`The key was changed (this page's address holds the new link), but the read-only link could not be replaced: ${messageOf(error)}. Reload the page, then make a new read-only link in Share.`),
      );
    };
    doc
      .whenSynced(10_000)
      .then(() => changeDocumentKey(wire, doc.id, key, newKey, doc.version))
      .then(written, async (error: unknown) => {
        // The write may have been made though its answer was lost: then only the new key opens the document.
        if (await opensWith(wire, doc.id, newKey)) return written();
        changing = false;
        button.disabled = false;
        setReadOnly(doc.deleted);
        say(`Could not change the key: ${messageOf(error)}`);
      });
  };
  doc.on("title", (title) => {
    if (title === UNREADABLE_TITLE && !changing) options.lost();
  });
  doc.on("key-lost", () => {
    if (!changing) options.lost();
  });
  return button;
}

/** "Change the key?": `confirmed` runs only when Change key is chosen; Escape or Cancel (the default) do nothing. */
function confirmDialog(confirmed: () => void): { ask(): void } {
  const dialog = h(
    "dialog",
    { class: "confirm-dialog", "aria-labelledby": "change-key-heading", "aria-describedby": "change-key-text" },
    h("h2", { id: "change-key-heading" }, "Change the key?"),
    h(
      "p",
      { id: "change-key-text" },
      "The document is encrypted again under a new key, and this page gets its new link. Every other link to it stops working: the edit links others hold and the read-only link (a new one is made). Pages open elsewhere stop and ask for the new link.",
    ),
    h("form", { method: "dialog", class: "row" }, h("button", { value: "cancel", class: "secondary" }, "Cancel"), h("button", { value: "change" }, "Change key")),
  );
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "change") confirmed();
  });
  return {
    ask() {
      if (!dialog.isConnected) document.body.append(dialog);
      dialog.returnValue = "";
      dialog.showModal();
    },
  };
}

/** A new read-only link when the document has one (the old one stops working); nothing when it has none. */
function replaceReadLink(wire: FolioClient, id: string): Promise<unknown> {
  return wire.read.link(id).then(
    () => wire.read.createLink(id),
    (error: unknown) => {
      if (!(error instanceof FolioError && error.status === 404)) throw error;
    },
  );
}

/** Whether `key` opens the document now (false when it does not, or when the document cannot be read). */
function opensWith(wire: FolioClient, id: string, key: string): Promise<boolean> {
  return withDocumentKey(wire, key)
    .getDocument(id)
    .then(
      () => true,
      () => false,
    );
}
