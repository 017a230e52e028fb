/**
 * The read-only page's history panel (history-versions.ts): the document's milestones and newest state
 * through the read-only link (GET /read/{readId}/history), newest first, following the document while
 * open, and each version's changes against the one before. Nothing to roll back, restore or save: the
 * link grants reading only.
 */
import type { FolioClient, ReadOnlyLiveDocument } from "../src/client/index.js";
import { entryLabel } from "./history-labels.js";
import { historyVersions, type HistoryPanel } from "./history-versions.js";

const NONE: ReadonlySet<number> = new Set();

export function readHistoryPanel(client: FolioClient, doc: ReadOnlyLiveDocument): HistoryPanel {
  const versions = historyVersions({ read: () => client.read.history(doc.readId), label: (entry, newest) => entryLabel(entry, newest, NONE) });
  doc.on("change", () => versions.follow());
  doc.on("title", () => versions.follow());
  doc.on("deleted", () => versions.follow());
  doc.on("restored", () => versions.follow());
  return { element: versions.element, shown: versions.shown, hidden: versions.hidden };
}
