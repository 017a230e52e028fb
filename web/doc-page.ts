/**
 * The document page at /d/<uuid>: title and rename, display name, sync indicator, the editor, the
 * conflict view, the deleted banner, and the history and tracker panels.
 */
import { FolioError, openDocument, type Conflict, type FolioClient, type LiveDocument, type ServiceInfo } from "../src/client/index.js";
import { h, messageOf, replace } from "./dom.js";
import { bindEditor, type BoundEditor } from "./editor.js";
import { historyPanel } from "./history-panel.js";
import { parseLine, trackerSlug } from "./outline.js";
import { displayName, rememberDocument, setDisplayName } from "./prefs.js";
import { syncIndicator } from "./sync-indicator.js";
import { ticketBadges } from "./ticket-badges.js";
import { trackerPanel, type TrackerPanel } from "./tracker-panel.js";

export async function renderDocument(root: HTMLElement, client: FolioClient, id: string): Promise<void> {
  const sync = syncIndicator();
  replace(root, h("main", { class: "doc-loading" }, h("p", {}, "Opening the document…"), sync.element));
  let info: ServiceInfo | undefined;
  let doc: LiveDocument;
  try {
    [doc, info] = await Promise.all([
      openDocument(client, id, { displayName: displayName() || undefined }),
      client.info().catch(() => undefined),
    ]);
  } catch (error) {
    const missing = error instanceof FolioError && error.status === 404;
    // A deleted document answers 404 too; whoever has its link may bring it back.
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
    replace(
      root,
      h(
        "main",
        { class: "home" },
        h("h1", {}, missing ? "No such document" : "The document cannot be opened"),
        h("p", {}, missing ? "It does not exist, or it was deleted. A deleted document can be restored by whoever has its link." : messageOf(error)),
        missing ? h("p", {}, restore) : undefined,
        h("p", {}, h("a", { href: "/" }, "Go to the start page")),
      ),
    );
    return;
  }
  rememberDocument(doc.id, doc.title);
  document.title = `${doc.title} · Folio`;

  const title = h("input", { id: "doc-title", class: "title-input", value: doc.title, maxlength: 255, "aria-label": "Document title", autocomplete: "off" });
  const rename = h("button", { type: "button", class: "secondary" }, "Rename");
  const name = h("input", { id: "display-name", value: displayName(), maxlength: 64, placeholder: "anonymous", autocomplete: "nickname" });
  const message = h("p", { class: "page-message", role: "status", "aria-live": "polite" });
  // The line is cut to one line on screen; the whole text stays in its title (and is read out).
  new MutationObserver(() => (message.title = message.textContent ?? "")).observe(message, { childList: true, characterData: true, subtree: true });
  const banner = h("div", { class: "banner", role: "alert", hidden: true });
  const conflictView = h("section", { class: "conflict", hidden: true, "aria-labelledby": "conflict-heading" });
  const editorHost = h("div", { class: "editor-host" });
  const history = historyPanel(client, doc);
  const showHistory = h("button", { type: "button", class: "secondary", "aria-expanded": "false", "aria-controls": "history-panel" }, "History");
  const remove = h("button", { type: "button", class: "danger" }, "Delete");
  history.element.id = "history-panel";
  history.element.hidden = true;
  // Without a tracker there is neither panel nor badges (and nothing is asked of the tracker routes).
  let tracker: TrackerPanel | undefined;
  const badges = info?.tracker ? ticketBadges({ client, doc, onTokenRejected: () => tracker?.logOut("The tracker session ended: log in again.") }) : undefined;
  if (info?.tracker && badges) tracker = trackerPanel({ client, doc, editor: (): BoundEditor => editor, trackerWeb: info.trackerWeb, badges });

  const header = h(
    "header",
    { class: "doc-header" },
    h("a", { href: "/", class: "brand", "aria-label": "Folio start page" }, "Folio"),
    h("div", { class: "title-row" }, title, rename),
    sync.element,
    h("div", { class: "name-row" }, h("label", { for: "display-name" }, "Your name"), name),
  );
  const toolbar = h("div", { class: "toolbar", role: "group", "aria-label": "Document actions" }, showHistory, remove);
  replace(
    root,
    header,
    banner,
    h(
      "div",
      { class: "doc-layout" },
      h("main", { class: "doc-main" }, toolbar, message, conflictView, editorHost, h("p", { class: "hint muted" }, "Enter starts a sibling node; Alt+→ / Alt+← indent and outdent; Ctrl+Z undoes your own edits; Tab leaves the editor.")),
      h("aside", { class: "side", "aria-label": "Panels" }, history.element, tracker?.element),
    ),
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

  const showDeleted = () => {
    sync.show("deleted");
    const restore = h("button", { type: "button" }, "Restore");
    restore.addEventListener("click", () => {
      restore.disabled = true;
      client.restore(doc.id).catch((error: unknown) => {
        message.textContent = `Could not restore: ${messageOf(error)}`;
        restore.disabled = false;
      });
    });
    replace(banner, h("span", {}, "This document was deleted — "), restore);
    banner.hidden = false;
    editor.setReadOnly(true);
    remove.disabled = true;
  };
  const showRestored = () => {
    banner.hidden = true;
    replace(banner);
    editor.setReadOnly(false);
    remove.disabled = false;
    sync.show(doc.status);
    message.textContent = "The document was restored.";
  };
  const showConflict = (conflict: Conflict) => {
    editor.setReadOnly(true);
    const choose = (choice: "theirs" | "mine") => () => {
      conflictView.hidden = true;
      replace(conflictView);
      conflict.resolve(choice);
      editor.setReadOnly(doc.deleted);
      editor.view.focus();
    };
    replace(
      conflictView,
      h("h2", { id: "conflict-heading", tabindex: -1 }, "Someone changed the same lines"),
      h("p", {}, "Your edit and theirs overlap. Choose which text to keep; the other is dropped."),
      h(
        "div",
        { class: "conflict-texts" },
        h("figure", {}, h("figcaption", {}, "Theirs (on the service)"), h("pre", { class: "theirs" }, conflict.theirs)),
        h("figure", {}, h("figcaption", {}, "Mine (this page)"), h("pre", { class: "mine" }, conflict.mine)),
      ),
      h("div", { class: "row" }, h("button", { type: "button", onclick: choose("theirs") }, "Keep theirs"), h("button", { type: "button", onclick: choose("mine") }, "Keep mine")),
    );
    conflictView.hidden = false;
    conflictView.querySelector<HTMLElement>("h2")?.focus();
  };

  sync.show(doc.deleted ? "deleted" : doc.status);
  doc.on("status", (status) => (doc.deleted ? sync.show("deleted") : sync.show(status)));
  doc.on("deleted", showDeleted);
  doc.on("restored", showRestored);
  doc.on("conflict", showConflict);
  doc.on("error", (error) => (message.textContent = messageOf(error)));
  doc.on("title", (next) => {
    if (document.activeElement !== title) title.value = next;
    document.title = `${next} · Folio`;
    rememberDocument(doc.id, next);
  });
  if (doc.deleted) showDeleted();

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
  showHistory.addEventListener("click", () => {
    const open = history.element.hidden;
    history.element.hidden = !open;
    showHistory.setAttribute("aria-expanded", String(open));
    if (open) void history.refresh();
  });
  remove.addEventListener("click", () => {
    remove.disabled = true;
    client.deleteDocument(doc.id).catch((error: unknown) => {
      message.textContent = `Could not delete: ${messageOf(error)}`;
      remove.disabled = false;
    });
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
