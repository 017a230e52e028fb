/**
 * The history panel's frame, shared by the edit page (history-panel.ts) and the read-only page
 * (read-history-panel.ts): the document's milestones and its newest state, newest first (history-
 * entries.ts, named by history-labels.ts), and the preview of one: its changes against the version
 * before it and its whole text, with the page's button for it (Roll back, Restore). The preview
 * follows the newest state while it shows it, and is rebuilt only when what it shows changed, so the
 * focus stays on its buttons while the list follows the document. The list is read one read at a
 * time, and read again once the document's changes pause while the panel is open.
 */
import h from "crelt";
import type { HistoryEntry } from "../src/client/index.js";
import { diffView } from "./diff-view.js";
import { messageOf } from "./error-message.js";
import { entryItem } from "./history-entries.js";
import { replace } from "./replace-children.js";
import { statusLine, type StatusLine } from "./status-line.js";
import { versionDiff } from "./version-diff.js";

/** Changes come in bursts (typing): the list is read again once they pause this long. */
const FOLLOW_DELAY_MS = 400;

export interface VersionsOptions {
  read: () => Promise<readonly HistoryEntry[]>;
  /** An entry's name; `newest`: it is the newest entry. */
  label: (entry: HistoryEntry, newest: boolean) => string;
  /** A row between the heading and the status line (the edit page's Save version). */
  tools?: HTMLElement;
  /** The preview's button for a version, if any. */
  action?: (entry: HistoryEntry, newest: boolean) => HTMLElement | undefined;
  /** What else decides the preview's button (the edit page: whether the document is deleted). */
  actionState?: () => string;
  /** After each read (the list shown): the default says how many versions there are. */
  afterRead?: (entries: readonly HistoryEntry[]) => void;
}

/** What a page's history panel hands its page: the panel, and when it is shown or hidden (panels.ts). */
export interface HistoryPanel {
  element: HTMLElement;
  /** The panel became visible: it loads the list and follows the document until hidden. */
  shown: () => void;
  hidden: () => void;
}

export interface Versions extends HistoryPanel {
  status: StatusLine;
  /** The versions as last read, oldest first. */
  entries(): readonly HistoryEntry[];
  /** Reads the list again (one read at a time: a call during a read asks for one more after it). */
  refresh: () => Promise<void>;
  /** The document changed: the list is read again once changes pause, if the panel is open and `stale()` (when given) says so. */
  follow(stale?: () => boolean): void;
  /** Says how many versions there are. */
  sayCount(): void;
}

export function historyVersions(options: VersionsOptions): Versions {
  const status = statusLine("panel-status");
  const list = h("ol", { class: "history-list", reversed: true, "aria-label": "Versions, newest first" });
  const preview = h("div", { class: "history-preview" });
  const element = h("section", { class: "panel history", "aria-labelledby": "history-heading" }, h("h2", { id: "history-heading", tabindex: "-1" }, "History"), options.tools, status.element, list, preview);
  let entries: HistoryEntry[] = [];
  let previewed: number | undefined;
  /** Whether the preview shows the newest state: it then follows the newest state as it moves on. */
  let previewedNewest = false;
  let previewKey = "";
  let open = false;
  const sayCount = () => status.say(`${entries.length} version${entries.length === 1 ? "" : "s"} in the history.`);

  const show = (entry: HistoryEntry) => {
    previewed = entry.version;
    const index = entries.findIndex((candidate) => candidate.version === entry.version);
    const before = entries[index - 1];
    const newest = index === entries.length - 1;
    previewedNewest = newest;
    const label = options.label(entry, newest);
    const key = `${entry.version}/${before?.version ?? 0}/${newest}/${options.actionState?.() ?? ""}/${label}`;
    if (key === previewKey) return;
    previewKey = key;
    replace(
      preview,
      h("h3", { tabindex: "-1", id: "preview-heading" }, `Version ${entry.version}: ${label}`),
      h("p", { class: "diff-caption muted" }, before ? `Changes since version ${before.version}` : "The first text"),
      diffView(versionDiff(before?.content ?? "", entry.content)),
      h(
        "details",
        { class: "whole-text" },
        h("summary", {}, "Whole text"),
        h("pre", { class: "version-text", "aria-labelledby": "preview-heading" }, entry.content === "" ? "(empty)" : entry.content),
      ),
      options.action?.(entry, newest),
    );
  };

  const render = () => {
    const focused = document.activeElement instanceof HTMLElement && list.contains(document.activeElement) ? document.activeElement.dataset.version : undefined;
    const newest = entries.at(-1)?.version;
    const view = (entry: HistoryEntry) => () => {
      show(entry);
      preview.querySelector<HTMLElement>("h3")?.focus();
    };
    replace(list, ...[...entries].reverse().map((entry) => entryItem(entry, options.label(entry, entry.version === newest), entry.version === newest, view(entry))));
    // A list that follows the document is rebuilt under the reader: the focus stays on its version.
    if (focused) list.querySelector<HTMLElement>(`button[data-version="${focused}"]`)?.focus();
    const shown = entries.find((entry) => entry.version === previewed) ?? (previewedNewest ? entries.at(-1) : undefined);
    if (shown) show(shown);
    else if (previewed !== undefined) {
      previewed = undefined;
      previewKey = "";
      replace(preview);
    }
  };

  let loading: Promise<void> | undefined;
  let again = false;
  const load = async () => {
    try {
      entries = [...(await options.read())].sort((a, b) => a.version - b.version);
      render();
      (options.afterRead ?? sayCount)(entries);
    } catch (error) {
      status.say(`Could not load the history: ${messageOf(error)}`);
    }
  };
  const refresh = (): Promise<void> => {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      do {
        again = false;
        await load();
      } while (again && open);
    })().finally(() => (loading = undefined));
    return loading;
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    element,
    status,
    entries: () => entries,
    refresh,
    follow(stale) {
      if (!open) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (!stale || stale()) void refresh();
      }, FOLLOW_DELAY_MS);
    },
    sayCount,
    shown: () => {
      open = true;
      status.say("Loading history…");
      void refresh();
    },
    hidden: () => {
      open = false;
      clearTimeout(timer);
    },
  };
}
