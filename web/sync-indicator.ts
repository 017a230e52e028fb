/**
 * The sync indicator: a fixed-width live region, so that its changes are announced and never move
 * the layout. Its words are true at every moment: "Saved" only when nothing is unsent, and "kept on
 * this device" only while the unsent edits really are in this browser's storage (pending-store.ts).
 */
import h from "crelt";
import type { LiveDocument, SyncStatus } from "../src/client/index.js";
import type { Keeping, PageStore } from "./pending-store.js";

const OFFLINE: Record<Keeping, string> = {
  none: "Offline",
  kept: "Offline — edits kept on this device",
  "not-kept": "Offline — keep this page open",
};

function label(status: SyncStatus | "deleted", keeping: Keeping): string {
  switch (status) {
    case "deleted":
      return "Deleted";
    case "synced":
      return "Saved";
    case "syncing":
      return "Saving…";
    case "offline":
      return OFFLINE[keeping];
    case "conflict":
      return "Conflict";
  }
}

export interface SyncIndicator {
  element: HTMLElement;
  show(status: SyncStatus | "deleted"): void;
  keep(keeping: Keeping): void;
  /** Follows the opened document's status and whether this browser keeps its unsent edits. */
  follow(doc: LiveDocument, store: PageStore): void;
}

/** Made while the document opens ("Loading…"), then told to follow it. */
export function syncIndicator(): SyncIndicator {
  const element = h("span", { class: "sync", role: "status", "aria-live": "polite", "data-status": "syncing", "data-keeping": "none" }, "Loading…");
  let status: SyncStatus | "deleted" | undefined;
  let keeping: Keeping = "none";
  const render = () => {
    if (status === undefined) return;
    element.dataset.status = status;
    element.dataset.keeping = keeping;
    element.textContent = label(status, keeping);
    element.title = element.textContent;
  };
  const indicator: SyncIndicator = {
    element,
    show(next) {
      status = next;
      render();
    },
    keep(next) {
      keeping = next;
      render();
    },
    follow(doc, store) {
      indicator.show(doc.deleted ? "deleted" : doc.status);
      indicator.keep(store.keeping);
      store.onKeeping((next) => indicator.keep(next));
      doc.on("status", (next) => indicator.show(doc.deleted ? "deleted" : next));
    },
  };
  return indicator;
}
