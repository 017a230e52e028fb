/**
 * Delete and the deleted banner. "Delete" deletes at once, with no question: the banner offers the way
 * back at once (history and text survive a delete), "Undo" on the page that deleted it just now and
 * "Restore" on every other (through the change feed). While the document is deleted the editor is
 * read-only, Delete is disabled and the sync indicator says "Deleted".
 */
import h from "crelt";
import type { FolioClient, LiveDocument } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import { replace } from "./replace-children.js";
import type { SyncIndicator } from "./sync-indicator.js";

export interface DeletionParts {
  client: FolioClient;
  doc: LiveDocument;
  sync: SyncIndicator;
  say: (text: string) => void;
  setReadOnly: (readOnly: boolean) => void;
}

export interface Deletion {
  /** The toolbar's Delete button. */
  button: HTMLButtonElement;
  /** The banner under the header, hidden while the document is not deleted. */
  banner: HTMLElement;
  /** Shows the document as deleted (the page opens on a deleted document). */
  showDeleted(): void;
}

export function deletion({ client, doc, sync, say, setReadOnly }: DeletionParts): Deletion {
  const banner = h("div", { class: "banner", role: "alert", hidden: true });
  const button = h("button", { type: "button", class: "danger" }, "Delete");
  let deletedHere = false;

  const showDeleted = () => {
    sync.show("deleted");
    if (!banner.hidden) return;
    const undo = deletedHere;
    const restore = h("button", { type: "button" }, undo ? "Undo" : "Restore");
    restore.addEventListener("click", () => {
      restore.disabled = true;
      client.restore(doc.id).catch((error: unknown) => {
        say(`Could not restore: ${messageOf(error)}`);
        restore.disabled = false;
      });
    });
    replace(banner, h("span", {}, undo ? "You deleted this document — " : "This document was deleted — "), restore);
    banner.hidden = false;
    setReadOnly(true);
    button.disabled = true;
    if (undo) restore.focus();
  };
  const showRestored = () => {
    deletedHere = false;
    banner.hidden = true;
    replace(banner);
    setReadOnly(false);
    button.disabled = false;
    sync.show(doc.status);
    say("The document was restored.");
  };
  doc.on("deleted", showDeleted);
  doc.on("restored", showRestored);

  button.addEventListener("click", () => {
    button.disabled = true;
    deletedHere = true;
    // The banner comes at once; the feed's DELETED event finds it there.
    client
      .deleteDocument(doc.id)
      .then(showDeleted)
      .catch((error: unknown) => {
        deletedHere = false;
        say(`Could not delete: ${messageOf(error)}`);
        button.disabled = false;
      });
  });
  return { button, banner, showDeleted };
}
