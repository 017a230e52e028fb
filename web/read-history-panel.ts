/**
 * The read-only page's history panel: the document's milestones and newest state through the
 * read-only link (GET /read/{readId}/history), newest first, following the document while open, and
 * each version's changes against the one before. Nothing to roll back, restore or save: the link
 * grants reading only.
 */
import h from "crelt";
import type { FolioClient, HistoryEntry, ReadOnlyLiveDocument } from "../src/client/index.js";
import { diffView } from "./diff-view.js";
import { messageOf } from "./error-message.js";
import { replace } from "./replace-children.js";
import { entryItem } from "./history-entries.js";
import { entryLabel } from "./history-labels.js";
import { versionDiff } from "./version-diff.js";

/** Changes come in bursts (typing): the list is read again once they pause this long. */
const FOLLOW_DELAY_MS = 400;
const NONE: ReadonlySet<number> = new Set();

export function readHistoryPanel(client: FolioClient, doc: ReadOnlyLiveDocument): { element: HTMLElement; shown: () => void; hidden: () => void } {
  const status = h("p", { class: "panel-status", role: "status", "aria-live": "polite" });
  const list = h("ol", { class: "history-list", reversed: true, "aria-label": "Versions, newest first" });
  const preview = h("div", { class: "history-preview" });
  const element = h("section", { class: "panel history", "aria-labelledby": "history-heading" }, h("h2", { id: "history-heading", tabindex: "-1" }, "History"), status, list, preview);
  let entries: HistoryEntry[] = [];
  let previewed: number | undefined;
  let open = false;

  const show = (entry: HistoryEntry) => {
    previewed = entry.version;
    const index = entries.findIndex((candidate) => candidate.version === entry.version);
    const before = entries[index - 1];
    replace(
      preview,
      h("h3", { tabindex: "-1", id: "preview-heading" }, `Version ${entry.version}: ${entryLabel(entry, index === entries.length - 1, NONE)}`),
      h("p", { class: "diff-caption muted" }, before ? `Changes since version ${before.version}` : "The first text"),
      diffView(versionDiff(before?.content ?? "", entry.content)),
      h(
        "details",
        { class: "whole-text" },
        h("summary", {}, "Whole text"),
        h("pre", { class: "version-text", "aria-labelledby": "preview-heading" }, entry.content === "" ? "(empty)" : entry.content),
      ),
    );
  };

  const render = () => {
    const focused = document.activeElement instanceof HTMLElement && list.contains(document.activeElement) ? document.activeElement.dataset.version : undefined;
    const newest = entries.at(-1)?.version;
    const view = (entry: HistoryEntry) => () => {
      show(entry);
      preview.querySelector<HTMLElement>("h3")?.focus();
    };
    replace(list, ...[...entries].reverse().map((entry) => entryItem(entry, entryLabel(entry, entry.version === newest, NONE), entry.version === newest, view(entry))));
    if (focused) list.querySelector<HTMLElement>(`button[data-version="${focused}"]`)?.focus();
    const shown = entries.find((entry) => entry.version === previewed);
    if (shown) show(shown);
  };

  let loading = false;
  let again = false;
  const refresh = async (): Promise<void> => {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    do {
      again = false;
      try {
        entries = [...(await client.read.history(doc.readId))].sort((a, b) => a.version - b.version);
        render();
        status.textContent = `${entries.length} version${entries.length === 1 ? "" : "s"} in the history.`;
      } catch (error) {
        status.textContent = `Could not load the history: ${messageOf(error)}`;
      }
    } while (again && open);
    loading = false;
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  const follow = () => {
    if (!open) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      void refresh();
    }, FOLLOW_DELAY_MS);
  };
  doc.on("change", follow);
  doc.on("title", follow);
  doc.on("deleted", follow);
  doc.on("restored", follow);

  return {
    element,
    shown: () => {
      open = true;
      status.textContent = "Loading history…";
      void refresh();
    },
    hidden: () => {
      open = false;
      clearTimeout(timer);
    },
  };
}
