/** The sync indicator: a fixed-width live region, so that its changes are announced and never move the layout. */
import type { SyncStatus } from "../src/client/index.js";
import { h } from "./dom.js";

const LABELS: Record<SyncStatus, string> = {
  synced: "Saved",
  syncing: "Saving…",
  offline: "Offline — edits kept",
  conflict: "Conflict",
};

export function syncIndicator(): { element: HTMLElement; show(status: SyncStatus | "deleted"): void } {
  const element = h("span", { class: "sync", role: "status", "aria-live": "polite", "data-status": "syncing" }, "Loading…");
  return {
    element,
    show(status) {
      element.dataset.status = status;
      element.textContent = status === "deleted" ? "Deleted" : LABELS[status];
    },
  };
}
