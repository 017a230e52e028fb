/**
 * The history panel: the document's milestones (time, type, "changed by" as an unverified name), any
 * version's text, restore or roll back to it, and "save version" (a milestone patch).
 */
import type { FolioClient, HistoryEntry, LiveDocument } from "../src/client/index.js";
import { h, messageOf, replace } from "./dom.js";

const TYPE_LABELS: Record<string, string> = {
  CREATED: "created",
  UPDATED: "edited",
  RENAMED: "renamed",
  DELETED: "deleted",
  RESTORED: "restored",
  ROLLED_BACK: "rolled back",
};

export function historyPanel(client: FolioClient, doc: LiveDocument): { element: HTMLElement; shown: () => void; hidden: () => void } {
  const status = h("p", { class: "panel-status", role: "status", "aria-live": "polite" });
  const list = h("ol", { class: "history-list", reversed: true });
  const preview = h("div", { class: "history-preview" });
  const save = h("button", { type: "button" }, "Save version");
  const reload = h("button", { type: "button", class: "secondary" }, "Refresh");
  const element = h(
    "section",
    { class: "panel history", "aria-labelledby": "history-heading" },
    h("h2", { id: "history-heading", tabindex: -1 }, "History"),
    h("div", { class: "row" }, save, reload),
    status,
    list,
    preview,
  );

  const show = (entry: HistoryEntry) => {
    const restore = h("button", { type: "button" }, doc.deleted ? `Restore version ${entry.version}` : `Roll back to version ${entry.version}`);
    restore.addEventListener("click", () => {
      restore.disabled = true;
      client
        .restore(doc.id, entry.version)
        .then(async () => {
          status.textContent = `Version ${entry.version} restored.`;
          await refresh();
        })
        .catch((error: unknown) => {
          status.textContent = `Could not restore: ${messageOf(error)}`;
          restore.disabled = false;
        });
    });
    replace(
      preview,
      h("h3", { tabindex: -1, id: "preview-heading" }, `Version ${entry.version}: ${entry.title}`),
      h("pre", { class: "version-text", "aria-labelledby": "preview-heading" }, entry.content === "" ? "(empty)" : entry.content),
      restore,
    );
    preview.querySelector<HTMLElement>("h3")?.focus();
  };

  const refresh = async () => {
    status.textContent = "Loading history…";
    try {
      const entries = await client.history(doc.id);
      const newest = [...entries].sort((a, b) => b.version - a.version);
      replace(
        list,
        ...newest.map((entry) =>
          h(
            "li",
            { class: "history-entry", value: entry.version },
            h("span", { class: "history-type" }, `v${entry.version} · ${TYPE_LABELS[entry.changeType] ?? entry.changeType}`),
            h("time", { datetime: entry.timestamp }, new Date(entry.timestamp).toLocaleString()),
            h(
              "span",
              { class: "history-by" },
              entry.displayName ? `changed by ${entry.displayName} ` : "changed by an unnamed client ",
              entry.displayName ? h("span", { class: "muted", title: "a name the author chose; not verified" }, "(unverified)") : undefined,
            ),
            h("button", { type: "button", class: "link-button", "aria-label": `View version ${entry.version}`, onclick: () => show(entry) }, "View"),
          ),
        ),
      );
      status.textContent = `${entries.length} milestone${entries.length === 1 ? "" : "s"}.`;
    } catch (error) {
      status.textContent = `Could not load the history: ${messageOf(error)}`;
    }
  };

  save.addEventListener("click", () => {
    save.disabled = true;
    doc
      .saveMilestone()
      .then(async () => {
        await refresh();
        status.textContent = "Version saved.";
      })
      .catch((error: unknown) => (status.textContent = `Could not save the version: ${messageOf(error)}`))
      .finally(() => (save.disabled = false));
  });
  reload.addEventListener("click", () => void refresh());
  return { element, shown: () => void refresh(), hidden: () => undefined };
}
