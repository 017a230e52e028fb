/**
 * The read-only page at /r/<readId> (docs/sharing.md): the document's title and text, followed live
 * through the read-only link, marked read-only, with an indicator that says whether it is live, offline
 * (retrying), deleted, or whether the link stopped working (replaced or revoked). Nothing on it can
 * change the document, and it never learns the document's edit id (the read answers do not carry it).
 */
import h from "crelt";
import { FolioError, isEncryptedDocument, NotEncryptedError, openReadOnly, UNREADABLE_TITLE, withDocumentKey, WrongKeyError, type FolioClient, type ReadOnlyLiveDocument } from "../src/client/index.js";
import { clickableLinks } from "./clickable-links.js";
import { docLayout } from "./doc-layout.js";
import { messageOf } from "./error-message.js";
import { showKeyProblem } from "./key-needed.js";
import { showNotice } from "./notice-page.js";
import { hereNow } from "./here-now.js";
import { pageHeader } from "./page-header.js";
import { closeWithPage } from "./page-lifetime.js";
import { peerCursors } from "./peer-cursors.js";
import { displayName } from "./prefs.js";
import { readHistoryPanel } from "./read-history-panel.js";
import { readIndicator, type ReadIndicator } from "./read-indicator.js";
import { readOnlyView } from "./read-only-view.js";
import { replace } from "./replace-children.js";
import { transferPanel } from "./transfer-panel.js";

/** Opens the link (the one place the read-only page opens a document) and shows it, or why it cannot. */
export async function renderReadOnly(root: HTMLElement, client: FolioClient, readId: string, key?: string): Promise<void> {
  const indicator = readIndicator();
  replace(root, h("main", { class: "doc-loading" }, h("p", {}, "Opening the read-only document…"), indicator.element));
  let doc: ReadOnlyLiveDocument;
  try {
    doc = await openReadOnly(client, readId, { feed: "stream", ...(key !== undefined ? { key } : {}) });
  } catch (error) {
    if (error instanceof WrongKeyError) return showKeyProblem(root, "wrong", true);
    if (error instanceof NotEncryptedError) return showKeyProblem(root, "not-encrypted", true, `/r/${readId}`);
    await showReadFailure(root, client, readId, error);
    return;
  }
  // An encrypted document without the link's key: nothing of it is shown (docs/encryption.md).
  if (key === undefined && isEncryptedDocument(doc)) {
    doc.close();
    return showKeyProblem(root, "missing", true);
  }
  renderFollowed(root, key !== undefined ? withDocumentKey(client, key) : client, doc, indicator, key !== undefined);
}

function renderFollowed(root: HTMLElement, client: FolioClient, doc: ReadOnlyLiveDocument, indicator: ReadIndicator, encrypted: boolean): void {
  const heading = h("h1", { class: "read-title" }, doc.title);
  const banner = h("div", { class: "banner", role: "alert", hidden: true });
  const editorHost = h("div", { class: "editor-host read-only" });
  const history = readHistoryPanel(client, doc);
  // The file of a plain document comes from the service; an encrypted one's is converted here.
  const transfer = transferPanel({
    current: () => ({ title: doc.title, content: doc.text }),
    fromService: (format) => (encrypted ? undefined : client.read.export(doc.readId, format)),
  });
  const note = h("p", { class: "read-note" }, "You are reading this document through a read-only link: it follows every change live, and you can select and copy its text, but not change it.");
  const layout = docLayout({
    panels: [
      { label: "History", element: history.element, shown: history.shown, hidden: history.hidden },
      { label: "Export", element: transfer.element },
    ],
    toolbar: { label: "Document", actions: [] },
    main: [note, editorHost],
    side: [transfer.element, history.element],
  });
  // A reader announces itself as a viewer (with the name kept in this browser) and sees who is here and where.
  doc.presence.set({ displayName: displayName() || undefined });
  const here = hereNow(doc, () => ({ name: displayName(), role: "viewer" }));
  replace(root, pageHeader("doc-header read-header", h("div", { class: "title-row" }, heading, h("span", { class: "read-only-mark" }, "Read-only")), indicator.element, here.element), banner, layout);
  const editor = readOnlyView(editorHost, doc, `Text of ${doc.title} (read-only)`, [clickableLinks(), peerCursors(doc, { send: false })]);

  const setTitle = (title: string) => {
    heading.textContent = title;
    document.title = `${title} (read-only) · Folio`;
  };
  const showBanner = (text: string | undefined) => {
    banner.hidden = text === undefined;
    banner.textContent = text ?? "";
  };
  const update = () => {
    // Once the link is gone the page follows nothing: the note would no longer be true.
    note.hidden = doc.revoked;
    if (doc.revoked) {
      indicator.show("revoked");
      showBanner("This read-only link no longer works: it was replaced by a new one, or sharing was stopped. The text below is the last this page received; ask for a new link.");
    } else if (doc.deleted) {
      indicator.show("deleted");
      showBanner("The document was deleted. The text below is its last; this page follows it again if it is restored.");
    } else {
      // The browser knows it is offline before a poll fails (that may take the poll's whole wait).
      indicator.show(navigator.onLine ? doc.status : "offline");
      showBanner(undefined);
    }
  };
  setTitle(doc.title);
  update();
  doc.on("title", setTitle);
  // The window's listeners go with the page when the key problem replaces it.
  const listening = new AbortController();
  const { signal } = listening;
  // Back online: poll at once, not after the backoff of the last failed poll.
  window.addEventListener("online", () => doc.retryNow(), { signal });
  // The document's key was changed: this link's key no longer opens it.
  doc.on("title", (title) => title === UNREADABLE_TITLE && (listening.abort(), doc.close(), showKeyProblem(root, "wrong", true)));
  doc.on("status", update);
  doc.on("deleted", update);
  doc.on("restored", update);
  doc.on("revoked", update);
  window.addEventListener("offline", update, { signal });
  window.addEventListener("online", update, { signal });
  editor.view.contentDOM.focus();

  closeWithPage(() => {
    doc.presence.leave({ keepalive: true }).catch(() => undefined);
    doc.close();
  });
}

/**
 * Why the link does not open: a 404 is either a link that is gone (never made, replaced, revoked) or a
 * deleted document, told apart by the link's history, which stays readable while the document is
 * deleted. Anything else (offline, the service down) is tried again when the browser is back online.
 */
async function showReadFailure(root: HTMLElement, client: FolioClient, readId: string, error: unknown): Promise<void> {
  const missing = error instanceof FolioError && error.status === 404;
  const deleted = missing && (await client.read.history(readId).then(() => true, () => false));
  const again = h("button", { type: "button" }, "Try again");
  const retry = () => window.location.reload();
  again.addEventListener("click", retry);
  if (!missing) window.addEventListener("online", retry, { once: true });
  const [heading, text] = deleted
    ? ["The document is deleted", "The document of this read-only link is deleted. The link works again if the document is restored."]
    : missing
      ? ["This read-only link does not work", "It was never made, or it was replaced by a new link, or sharing was stopped. Ask whoever shared it for the current link."]
      : ["The document cannot be opened", messageOf(error)];
  document.title = "Read-only link · Folio";
  showNotice(root, { heading, text, more: [missing && !deleted ? undefined : h("p", {}, again)] });
}
