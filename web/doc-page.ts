/**
 * The document page at /d/<uuid>, read top to bottom: the document is opened (doc-opening.ts), then
 * the page is made of its components, each owning its piece: the header (title-row.ts, the sync
 * indicator, display-name-row.ts), the deleted banner and Delete (deletion.ts), the toolbar and the
 * side panels (doc-layout.ts, panels.ts: History, Tracker when the service has one, Share, Export and
 * import), Change key and the key's note (remember-key.ts) for an encrypted document, the message line,
 * and the editor (editor.ts, with its links: clickable-links.ts). Every panel of an encrypted document
 * is given a client that decrypts (withDocumentKey).
 */
import h from "crelt";
import { withDocumentKey, type FolioClient } from "../src/client/index.js";
import { changeKeyButton } from "./change-key.js";
import { clickableLinks } from "./clickable-links.js";
import { deletion } from "./deletion.js";
import { displayNameRow } from "./display-name-row.js";
import { docLayout } from "./doc-layout.js";
import { openForPage, type OpenedDocument } from "./doc-opening.js";
import { bindEditor } from "./editor.js";
import { messageOf } from "./error-message.js";
import { hereNow } from "./here-now.js";
import { historyPanel } from "./history-panel.js";
import { insertOutline } from "./insert-outline.js";
import { showKeyChanged } from "./key-changed.js";
import { pageHeader } from "./page-header.js";
import { askBeforeClosing, closeWithPage } from "./page-lifetime.js";
import { peerCursors } from "./peer-cursors.js";
import { displayName } from "./prefs.js";
import { replace } from "./replace-children.js";
import { sharePanel } from "./share-panel.js";
import { rememberKeyNote } from "./remember-key.js";
import { pageMessage } from "./status-line.js";
import { syncIndicator, type SyncIndicator } from "./sync-indicator.js";
import { titleRow } from "./title-row.js";
import { trackerPanel } from "./tracker-panel.js";
import { transferPanel } from "./transfer-panel.js";

const HINT =
  "Enter starts a sibling node; Tab / Shift+Tab indent and outdent; Ctrl+Enter or a click toggles a check box; Alt+Shift+↑ / ↓ move a node with its children; " +
  "Ctrl+F finds and replaces; Ctrl+Shift+[ / ] fold and unfold; Ctrl+Z undoes your own edits; Escape then Tab leaves the editor; Escape closes a panel.";

export async function renderDocument(root: HTMLElement, client: FolioClient, id: string, linkKey?: string): Promise<void> {
  const sync = syncIndicator();
  replace(root, h("main", { class: "doc-loading" }, h("p", {}, "Opening the document…"), sync.element));
  const opened = await openForPage(root, client, id, linkKey);
  if (opened) renderOpened(root, client, opened, sync);
}

function renderOpened(root: HTMLElement, wire: FolioClient, { doc, store, info, key }: OpenedDocument, sync: SyncIndicator): void {
  // Every panel reads and writes whole texts through a client that encrypts and decrypts them.
  const client = key !== undefined ? withDocumentKey(wire, key) : wire;
  const message = pageMessage();
  const title = titleRow(doc, { encrypted: key !== undefined, say: message.say });
  const history = historyPanel(client, doc);
  const share = sharePanel(client, doc.id, key);
  const transfer = transferPanel({
    current: () => ({ title: doc.title, content: doc.text }),
    // A plain document with everything saved is exported by the service; otherwise (an encrypted one,
    // unsaved edits) the text on screen is converted here.
    fromService: (format) => (key === undefined && doc.status === "synced" ? client.exportDocument(doc.id, format) : undefined),
    importing: { wire, insert: (text) => editor.view.dispatch(insertOutline(editor.view.state, text)) },
  });
  // Without a tracker there is neither panel nor badges (and nothing is asked of the tracker routes).
  const tracker = info?.tracker ? trackerPanel({ client, doc, trackerWeb: info.trackerWeb, encrypted: key !== undefined }) : undefined;
  // Back online: the unsent edits and the feed go at once, not after the backoff of their last failure.
  const retryNow = () => doc.retryNow();
  window.addEventListener("online", retryNow);
  // Someone else changed the key: this page's key no longer opens the document, and it stops.
  let stopped = false;
  const lost = () => {
    if (stopped) return;
    stopped = true;
    const shown = editor.view.state.doc.toString();
    window.removeEventListener("online", retryNow);
    doc.close();
    showKeyChanged(root, doc.id, shown);
  };
  const changeKey = key !== undefined ? changeKeyButton({ wire, doc, key, say: message.say, lost, setReadOnly: (readOnly) => editor.setReadOnly(readOnly) }) : undefined;
  const deleted = deletion({ client, doc, sync, say: message.say, setReadOnly: (readOnly) => editor.setReadOnly(readOnly) });
  const editorHost = h("div", { class: "editor-host" });
  const layout = docLayout({
    panels: [
      { label: "History", element: history.element, shown: history.shown, hidden: history.hidden },
      ...(tracker ? [{ label: "Tracker", element: tracker.element, open: true }] : []),
      { label: "Share", element: share.element, shown: share.shown },
      { label: "Export and import", element: transfer.element },
    ],
    toolbar: { label: "Document actions", actions: [changeKey, deleted.button] },
    main: [message.element, key !== undefined ? rememberKeyNote(doc, key) : undefined, editorHost, h("p", { class: "hint muted" }, HINT)],
    side: [share.element, transfer.element, history.element, tracker?.element],
  });
  // Who is here (docs/editor.md, "Who is here"): this page announces itself with its name, and its cursor as it moves.
  doc.presence.set({ displayName: displayName() || undefined });
  const here = hereNow(doc, () => ({ name: displayName(), role: "editor" }));
  replace(root, pageHeader("doc-header", title, sync.element, displayNameRow(doc, here.refresh), here.element), deleted.banner, layout);

  const extensions = [clickableLinks(info?.trackerWeb), peerCursors(doc, { send: true }), ...(tracker ? [tracker.extension] : [])];
  const editor = bindEditor(editorHost, doc, { onCursorLine: (line) => tracker?.followLine(line), label: `Text of ${doc.title}`, extensions });
  tracker?.attach(editor);
  sync.follow(doc, store);
  if (store.waiting > 0) message.say("Unsent edits from another closed page of this document are kept in this browser: reload to send them.");
  doc.on("error", (error) => message.say(messageOf(error)));
  if (doc.deleted) deleted.showDeleted();
  else editor.view.focus();

  // Edits that storage refused live in this page only: the browser asks before it is closed.
  askBeforeClosing(() => store.keeping === "not-kept" && doc.status !== "synced");
  closeWithPage(() => {
    // The goodbye outlives the page (fetch's keepalive): the others see it leave at once, not after the TTL.
    doc.presence.leave({ keepalive: true }).catch(() => undefined);
    window.removeEventListener("online", retryNow);
    tracker?.destroy();
    doc.close();
  });
}
