/**
 * The document page at /d/<uuid>: title and rename, display name, sync indicator, the editor, the
 * deleted banner, and the history and tracker panels. Unsent edits are kept in this browser
 * (pending-store.ts) from the first keystroke, so a reload or a closed tab resends them. An encrypted
 * document (its key in the link's fragment, docs/encryption.md) is opened with the key, every panel
 * given a client that decrypts (withDocumentKey); without the key the page says it is needed.
 */
import h from "crelt";
import {
  isEncryptedDocument,
  NotEncryptedError,
  openDocument,
  randomClientId,
  withDocumentKey,
  WrongKeyError,
  type FolioClient,
  type LiveDocument,
  type ServiceInfo,
} from "../src/client/index.js";
import { changeKeyButton, watchKey } from "./change-key.js";
import { showKeyProblem } from "./key-needed.js";
import { messageOf } from "./error-message.js";
import { replace } from "./replace-children.js";
import { bindEditor, type BoundEditor } from "./editor.js";
import { historyPanel } from "./history-panel.js";
import { showOpenFailure } from "./open-failure.js";
import { parseLine, trackerSlug } from "./outline.js";
import { panelToggles } from "./panels.js";
import { openPendingStore, type PageStore } from "./pending-store.js";
import { displayName, rememberDocument, setDisplayName } from "./prefs.js";
import { sharePanel } from "./share-panel.js";
import { syncIndicator } from "./sync-indicator.js";
import { ticketBadges } from "./ticket-badges.js";
import { trackerPanel, type TrackerPanel } from "./tracker-panel.js";

export async function renderDocument(root: HTMLElement, client: FolioClient, id: string, linkKey?: string): Promise<void> {
  const sync = syncIndicator();
  replace(root, h("main", { class: "doc-loading" }, h("p", {}, "Opening the document…"), sync.element));
  const store = await openPendingStore(id, randomClientId);
  let info: ServiceInfo | undefined;
  let doc: LiveDocument;
  let key = linkKey;
  try {
    // Without a key, unsent edits kept in this browser are taken over only once the document is known
    // to be plain: an encrypted one's are sealed, and would be taken for text.
    if (key === undefined && store.keeping === "kept" && isEncryptedDocument(await client.getDocument(id))) return showKeyProblem(root, "missing");
    const open = (withKey: string | undefined) => openDocument(client, id, { displayName: displayName() || undefined, pendingStore: store, clientId: store.clientId, ...(withKey !== undefined ? { key: withKey } : {}) });
    [doc, info] = await Promise.all([
      // A key in the link of a plain document is not needed: the document opens as it is.
      open(key).catch((error: unknown) => {
        if (!(error instanceof NotEncryptedError)) throw error;
        key = undefined;
        return open(undefined);
      }),
      client.info().catch(() => undefined),
    ]);
  } catch (error) {
    if (error instanceof WrongKeyError) return showKeyProblem(root, "wrong");
    // The kept edits stay in storage (this page still holds their clientId); a retry reloads the page.
    showOpenFailure(root, client, id, error, store.keeping === "kept", () => window.location.reload());
    return;
  }
  // An encrypted document opened without its key (nothing was kept to send): closed, nothing of it shown.
  if (key === undefined && isEncryptedDocument(doc)) {
    doc.close();
    return showKeyProblem(root, "missing");
  }
  renderOpened(root, client, doc, store, sync, info, key);
}

function renderOpened(
  root: HTMLElement,
  wire: FolioClient,
  doc: LiveDocument,
  store: PageStore,
  sync: ReturnType<typeof syncIndicator>,
  info: ServiceInfo | undefined,
  key: string | undefined,
): void {
  // Every panel reads and writes whole texts through a client that encrypts and decrypts them.
  const client = key !== undefined ? withDocumentKey(wire, key) : wire;
  // An encrypted document's title stays out of this browser's storage (the recent list).
  if (key === undefined) rememberDocument(doc.id, doc.title);
  document.title = `${doc.title} · Folio`;

  const title = h("input", { id: "doc-title", class: "title-input", value: doc.title, maxlength: key !== undefined ? "130" : "255", "aria-label": "Document title", autocomplete: "off" });
  const rename = h("button", { type: "button", class: "secondary" }, "Rename");
  const name = h("input", { id: "display-name", value: displayName(), maxlength: "64", placeholder: "anonymous", autocomplete: "nickname" });
  const message = h("p", { class: "page-message", role: "status", "aria-live": "polite" });
  // The line is cut to one line on screen; the whole text stays in its title (and is read out).
  new MutationObserver(() => (message.title = message.textContent ?? "")).observe(message, { childList: true, characterData: true, subtree: true });
  const banner = h("div", { class: "banner", role: "alert", hidden: true });
  const editorHost = h("div", { class: "editor-host" });
  const history = historyPanel(client, doc);
  const share = sharePanel(client, doc.id, key);
  const remove = h("button", { type: "button", class: "danger" }, "Delete");
  // Without a tracker there is neither panel nor badges (and nothing is asked of the tracker routes).
  let tracker: TrackerPanel | undefined;
  const badges = info?.tracker ? ticketBadges({ client, doc, onTokenRejected: () => tracker?.logOut("The tracker session ended: log in again.") }) : undefined;
  if (info?.tracker && badges) tracker = trackerPanel({ client, doc, editor: (): BoundEditor => editor, trackerWeb: info.trackerWeb, badges });
  const layout = h("div", { class: "doc-layout" });
  // With every panel closed the editor takes the whole width.
  const toggles = panelToggles(
    [
      { label: "History", element: history.element, shown: history.shown, hidden: history.hidden },
      ...(tracker ? [{ label: "Tracker", element: tracker.element, open: true }] : []),
      { label: "Share", element: share.element, shown: share.shown },
    ],
    (open) => layout.classList.toggle("no-panels", open === 0),
  );

  const header = h(
    "header",
    { class: "doc-header" },
    h("a", { href: "/", class: "brand", "aria-label": "Folio start page" }, "Folio"),
    h("div", { class: "title-row" }, title, rename, key !== undefined ? h("span", { class: "encrypted-mark", title: "Encrypted in this browser: the service stores only ciphertext" }, "Encrypted") : undefined),
    sync.element,
    h("div", { class: "name-row" }, h("label", { for: "display-name" }, "Your name"), name),
  );
  const changing = { now: false };
  const toolbar = h("div", { class: "toolbar", role: "group", "aria-label": "Document actions" }, ...toggles, key !== undefined ? changeKeyButton(wire, doc, key, message, changing) : undefined, remove);
  const hint = "Enter starts a sibling node; Alt+→ / Alt+← indent and outdent; Ctrl+Z undoes your own edits; Tab leaves the editor; Escape closes a panel.";
  replace(
    root,
    header,
    banner,
    layout,
  );
  h(
    layout,
    h("main", { class: "doc-main" }, toolbar, message, editorHost, h("p", { class: "hint muted" }, hint)),
    h("aside", { class: "side", "aria-label": "Panels" }, share.element, history.element, tracker?.element),
  );

  // The tracker panel follows the cursor's line, but only once the line has settled (not per keystroke).
  let lastShown = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const followLine = (line: number) => {
    if (!tracker) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      // A linked line is shown again only when its link changes (not per keystroke: no refetch, no jump).
      const text = doc.text.split("\n")[line] ?? "";
      const link = parseLine(text).link;
      const key = `${line}\u0000${link ? `${link.kind}-${link.ref}` : text}\u0000${trackerSlug(doc.text) ?? ""}`;
      if (key === lastShown) return;
      lastShown = key;
      tracker.showLine(line);
    }, 250);
  };
  const editor = bindEditor(editorHost, doc, { onCursorLine: followLine, label: `Text of ${doc.title}`, extensions: badges ? [badges.extension] : [] });
  badges?.attach(editor.view);

  /** The banner of a deleted document; "Undo" when this page deleted it just now. */
  let deletedHere = false;
  const showDeleted = () => {
    sync.show("deleted");
    if (!banner.hidden) return;
    const undo = deletedHere;
    const restore = h("button", { type: "button" }, undo ? "Undo" : "Restore");
    restore.addEventListener("click", () => {
      restore.disabled = true;
      client.restore(doc.id).catch((error: unknown) => {
        message.textContent = `Could not restore: ${messageOf(error)}`;
        restore.disabled = false;
      });
    });
    replace(banner, h("span", {}, undo ? "You deleted this document — " : "This document was deleted — "), restore);
    banner.hidden = false;
    editor.setReadOnly(true);
    remove.disabled = true;
    if (undo) restore.focus();
  };
  const showRestored = () => {
    deletedHere = false;
    banner.hidden = true;
    replace(banner);
    editor.setReadOnly(false);
    remove.disabled = false;
    sync.show(doc.status);
    message.textContent = "The document was restored.";
  };

  sync.show(doc.deleted ? "deleted" : doc.status);
  sync.keep(store.keeping);
  store.onKeeping((keeping) => sync.keep(keeping));
  if (store.waiting > 0) message.textContent = "Unsent edits from another closed page of this document are kept in this browser: reload to send them.";
  doc.on("status", (status) => (doc.deleted ? sync.show("deleted") : sync.show(status)));
  doc.on("deleted", showDeleted);
  doc.on("restored", showRestored);
  doc.on("error", (error) => (message.textContent = messageOf(error)));
  doc.on("title", (next) => {
    if (document.activeElement !== title) title.value = next;
    document.title = `${next} · Folio`;
    if (key === undefined) rememberDocument(doc.id, next);
  });
  // Someone else changed the key: this page's key no longer opens the document.
  if (key !== undefined) watchKey(doc, changing, () => (doc.close(), showKeyProblem(root, "wrong")));
  if (doc.deleted) showDeleted();
  else editor.view.focus();

  rename.addEventListener("click", () => {
    const next = title.value.trim();
    if (next === "" || next === doc.title) return;
    rename.disabled = true;
    doc
      .rename(next)
      .then(() => (message.textContent = "Renamed."))
      .catch((error: unknown) => (message.textContent = `Could not rename: ${messageOf(error)}`))
      .finally(() => (rename.disabled = false));
  });
  title.addEventListener("keydown", (event) => {
    if (event.key === "Enter") rename.click();
  });
  name.addEventListener("change", () => {
    const chosen = name.value.trim();
    setDisplayName(chosen);
    doc.setDisplayName(chosen === "" ? undefined : chosen);
  });
  // No confirmation: the banner offers the way back at once (history and text survive a delete).
  remove.addEventListener("click", () => {
    remove.disabled = true;
    deletedHere = true;
    // The banner comes at once; the feed's DELETED event finds it there.
    client
      .deleteDocument(doc.id)
      .then(showDeleted)
      .catch((error: unknown) => {
        deletedHere = false;
        message.textContent = `Could not delete: ${messageOf(error)}`;
        remove.disabled = false;
      });
  });
  // Edits that storage refused live in this page only: the browser asks before it is closed.
  window.addEventListener("beforeunload", (event) => {
    if (store.keeping === "not-kept" && doc.status !== "synced") event.preventDefault();
  });
  window.addEventListener("pagehide", () => {
    badges?.destroy();
    doc.close();
  });
  // A page restored from the back/forward cache had its live document closed: open it afresh.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) window.location.reload();
  });
}
