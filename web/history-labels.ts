/**
 * How the history panel names its entries. The service lists the milestones plus the newest state
 * (docs/interface.md, "Milestones") without saying whether that newest state is a milestone too, so:
 * the newest entry is "Current text"; an earlier edit is a "Saved version" (kept by the Save button,
 * a write pause, or a whole-text change after it), as is any version this page saved itself; a text
 * replaced through the API (no sender) says so. See docs/editor.md.
 */
import type { HistoryEntry } from "../src/client/index.js";

export function entryLabel(entry: HistoryEntry, newest: boolean, savedHere: ReadonlySet<number>): string {
  switch (entry.changeType) {
    case "CREATED":
      return "Created";
    case "RENAMED":
      return `Renamed to “${entry.title}”`;
    case "DELETED":
      return "Deleted";
    case "RESTORED":
      return "Restored";
    case "ROLLED_BACK":
      return "Rolled back";
    default:
      if (savedHere.has(entry.version)) return "Saved version";
      if (entry.clientId === undefined) return "Text replaced";
      return newest ? "Current text" : "Saved version";
  }
}
