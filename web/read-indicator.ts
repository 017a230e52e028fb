/**
 * The read-only page's indicator: whether the document is live, offline (retrying), deleted, or
 * whether the link stopped working (replaced or revoked).
 */
import h from "crelt";

export type ReadState = "opening" | "live" | "offline" | "deleted" | "revoked";

const LABELS: Record<ReadState, string> = {
  opening: "Opening…",
  live: "Live",
  offline: "Offline — retrying",
  deleted: "Document deleted",
  revoked: "Link no longer works",
};

export interface ReadIndicator {
  element: HTMLElement;
  show: (state: ReadState) => void;
}

/** The editor's sync indicator's look (.sync), its own words. */
export function readIndicator(): ReadIndicator {
  const element = h("span", { class: "sync", role: "status", "aria-live": "polite", "data-status": "opening" }, LABELS.opening);
  return {
    element,
    show: (state) => {
      element.dataset.status = state;
      element.textContent = LABELS[state];
      element.title = LABELS[state];
    },
  };
}
