/** One entry of the history list on screen (its name: history-labels.ts). */
import h from "crelt";
import type { HistoryEntry } from "../src/client/index.js";

/** One entry of the list: version, label, time, the unverified author and the View button. */
export function entryItem(entry: HistoryEntry, label: string, newest: boolean, view: () => void): HTMLLIElement {
  const saved = label === "Saved version";
  return h(
    "li",
    { class: `history-entry${saved ? " history-saved" : ""}${newest ? " history-newest" : ""}`, value: String(entry.version) },
    h(
      "span",
      { class: "history-type" },
      `v${entry.version} · ${label}`,
      newest && label !== "Current text" ? h("span", { class: "history-tag" }, "current") : undefined,
    ),
    h("time", { datetime: entry.timestamp }, new Date(entry.timestamp).toLocaleString()),
    h(
      "span",
      { class: "history-by" },
      entry.displayName ? `changed by ${entry.displayName} ` : "changed by an unnamed client ",
      entry.displayName ? h("span", { class: "muted", title: "a name the author chose; not verified" }, "(unverified)") : undefined,
    ),
    h("button", { type: "button", class: "link-button", "data-version": String(entry.version), "aria-label": `View version ${entry.version}`, onclick: view }, "View"),
  );
}
