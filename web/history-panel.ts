/**
 * The history panel: the document's milestones and its newest state, newest first, following the
 * document live while the panel is open; each version's changes against the version before it;
 * roll back (or restore) to a version, with an Undo right after; "Save version" (a milestone patch).
 */
import h from "crelt";
import type { Document, FolioClient, HistoryEntry, LiveDocument } from "../src/client/index.js";
import { diffView } from "./diff-view.js";
import { messageOf } from "./error-message.js";
import { replace } from "./replace-children.js";
import { entryItem } from "./history-entries.js";
import { entryLabel } from "./history-labels.js";
import { versionDiff } from "./version-diff.js";

export interface HistoryPanel {
  element: HTMLElement;
  /** The panel became visible: it loads the list and follows the document until hidden. */
  shown: () => void;
  hidden: () => void;
}

/** Changes come in bursts (typing): the list is read again once they pause this long. */
const FOLLOW_DELAY_MS = 400;

export function historyPanel(client: FolioClient, doc: LiveDocument): HistoryPanel {
  const status = h("p", { class: "panel-status", role: "status", "aria-live": "polite" });
  const list = h("ol", { class: "history-list", reversed: true, "aria-label": "Versions, newest first" });
  const preview = h("div", { class: "history-preview" });
  const save = h("button", { type: "button" }, "Save version");
  const element = h(
    "section",
    { class: "panel history", "aria-labelledby": "history-heading" },
    h("h2", { id: "history-heading", tabindex: "-1" }, "History"),
    h("div", { class: "row" }, save),
    status,
    list,
    preview,
  );
  let entries: HistoryEntry[] = [];
  let previewed: number | undefined;
  /** Whether the preview shows the newest state: it then follows the newest state as it moves on. */
  let previewedNewest = false;
  let previewKey = "";
  let open = false;
  const savedHere = new Set<number>();
  /** The version a rollback made, while its Undo is offered: once the document moves on, the offer ends. */
  let undoneBy: number | undefined;

  /** A message with an Undo button, which gets the focus (the rollback or restore happened at once, unasked). */
  const offerUndo = (message: string, undo: () => Promise<void>) => {
    const button = h("button", { type: "button", class: "secondary undo" }, "Undo");
    button.addEventListener("click", () => {
      button.disabled = true;
      undo().catch((error: unknown) => {
        status.textContent = `Could not undo: ${messageOf(error)}`;
      });
    });
    replace(status, `${message} `, button);
    button.focus();
  };
  const endUndo = () => {
    const button = status.querySelector("button");
    if (button === document.activeElement) element.querySelector<HTMLElement>("h2")?.focus();
    undoneBy = undefined;
    replace(status);
  };

  const rollBack = (version: number, announce: string) =>
    client.restore(doc.id, version).then(async (result: Document) => {
      undoneBy = result.version;
      await refresh();
      // The state the rollback replaced became a milestone just before it (docs/interface.md#whole-text-changes).
      offerUndo(announce, () => rollBack(result.version - 1, "Rollback undone."));
    });

  const show = (entry: HistoryEntry) => {
    previewed = entry.version;
    const index = entries.findIndex((candidate) => candidate.version === entry.version);
    const before = entries[index - 1];
    const newest = index === entries.length - 1;
    previewedNewest = newest;
    // Rebuilt only when what it shows changed, so the focus stays on its buttons while the list follows.
    const key = `${entry.version}/${before?.version ?? 0}/${newest}/${doc.deleted}/${entryLabel(entry, newest, savedHere)}`;
    if (key === previewKey) return;
    previewKey = key;
    const action = newest && !doc.deleted ? undefined : h("button", { type: "button" }, doc.deleted ? `Restore version ${entry.version}` : `Roll back to version ${entry.version}`);
    action?.addEventListener("click", () => {
      action.disabled = true;
      const done = doc.deleted
        ? client.restore(doc.id, entry.version).then(async () => {
            await refresh();
            status.textContent = `Version ${entry.version} restored.`;
          })
        : rollBack(entry.version, `Rolled back to version ${entry.version}.`);
      done
        .catch((error: unknown) => {
          status.textContent = `Could not restore: ${messageOf(error)}`;
        })
        .finally(() => (action.disabled = false));
    });
    replace(
      preview,
      h("h3", { tabindex: "-1", id: "preview-heading" }, `Version ${entry.version}: ${entryLabel(entry, newest, savedHere)}`),
      h("p", { class: "diff-caption muted" }, before ? `Changes since version ${before.version}` : "The first text"),
      diffView(versionDiff(before?.content ?? "", entry.content)),
      h(
        "details",
        { class: "whole-text" },
        h("summary", {}, "Whole text"),
        h("pre", { class: "version-text", "aria-labelledby": "preview-heading" }, entry.content === "" ? "(empty)" : entry.content),
      ),
      action,
    );
  };

  const render = () => {
    const focused = document.activeElement instanceof HTMLElement && list.contains(document.activeElement) ? document.activeElement.dataset.version : undefined;
    const newest = entries.at(-1)?.version;
    replace(list, ...[...entries].reverse().map((entry) => entryItem(entry, entryLabel(entry, entry.version === newest, savedHere), entry.version === newest, () => {
      show(entry);
      preview.querySelector<HTMLElement>("h3")?.focus();
    })));
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
      entries = [...(await client.history(doc.id))].sort((a, b) => a.version - b.version);
      render();
      if (undoneBy !== undefined && entries.at(-1)?.version !== undoneBy) endUndo();
      if (undoneBy === undefined) status.textContent = `${entries.length} version${entries.length === 1 ? "" : "s"} in the history.`;
    } catch (error) {
      status.textContent = `Could not load the history: ${messageOf(error)}`;
    }
  };
  /** One read at a time; a change during a read asks for one more after it. */
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
  const follow = (always: boolean) => () => {
    if (!open) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (always || doc.version !== entries.at(-1)?.version) void refresh();
    }, FOLLOW_DELAY_MS);
  };
  doc.on("change", follow(false));
  doc.on("status", follow(false));
  doc.on("title", follow(true));
  doc.on("deleted", follow(true));
  doc.on("restored", follow(true));

  save.addEventListener("click", () => {
    save.disabled = true;
    doc
      .saveMilestone()
      .then(async () => {
        savedHere.add(doc.version);
        await refresh();
        status.textContent = "Version saved.";
      })
      .catch((error: unknown) => (status.textContent = `Could not save the version: ${messageOf(error)}`))
      .finally(() => (save.disabled = false));
  });

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
