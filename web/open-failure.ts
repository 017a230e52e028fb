/**
 * What the page shows when a document cannot be opened: a 404 (unknown, or deleted: whoever has the
 * link may restore it), or another failure (offline, the service down), which is tried again when
 * the browser is back online or on "Try again". Unsent edits kept in this browser stay kept meanwhile.
 */
import h from "crelt";
import { FolioError, type FolioClient } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import { showNotice } from "./notice-page.js";

export function showOpenFailure(root: HTMLElement, client: FolioClient, id: string, error: unknown, keptEdits: boolean, retry: () => void): void {
  const missing = error instanceof FolioError && error.status === 404;
  const restore = h("button", { type: "button" }, "Restore it");
  restore.addEventListener("click", () => {
    restore.disabled = true;
    client
      .restore(id)
      .then(() => window.location.reload())
      .catch((failure: unknown) => {
        restore.replaceWith(h("span", { role: "alert" }, `Cannot restore: ${messageOf(failure)}`));
      });
  });
  const again = h("button", { type: "button" }, "Try again");
  const retryOnce = () => {
    window.removeEventListener("online", retryOnce);
    retry();
  };
  again.addEventListener("click", retryOnce);
  if (!missing) window.addEventListener("online", retryOnce);
  const kept = keptEdits ? h("p", { class: "kept" }, "Your unsent edits of this document are kept in this browser; they are sent once it opens.") : undefined;
  showNotice(root, {
    heading: missing ? "No such document" : "The document cannot be opened",
    text: missing ? "It does not exist, or it was deleted. A deleted document can be restored by whoever has its link." : messageOf(error),
    more: [kept, missing ? h("p", {}, restore) : h("p", {}, again)],
  });
}
