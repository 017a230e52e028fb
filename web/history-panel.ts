/**
 * The edit page's history panel (history-versions.ts: the list and the preview, following the
 * document live while open): roll back (or, while the document is deleted, restore) to a version, with
 * an Undo right after, and "Save version" (a milestone patch).
 */
import h from "crelt";
import type { Document, FolioClient, LiveDocument } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import { entryLabel } from "./history-labels.js";
import { historyVersions, type HistoryPanel } from "./history-versions.js";

export function historyPanel(client: FolioClient, doc: LiveDocument): HistoryPanel {
  const save = h("button", { type: "button" }, "Save version");
  const savedHere = new Set<number>();
  /** The version a rollback made, while its Undo is offered: once the document moves on, the offer ends. */
  let undoneBy: number | undefined;
  const versions = historyVersions({
    read: () => client.history(doc.id),
    label: (entry, newest) => entryLabel(entry, newest, savedHere),
    tools: h("div", { class: "row" }, save),
    action: (entry, newest) => (newest && !doc.deleted ? undefined : rollBackButton(entry.version)),
    actionState: () => String(doc.deleted),
    afterRead: (entries) => {
      if (undoneBy !== undefined && entries.at(-1)?.version !== undoneBy) endUndo();
      if (undoneBy === undefined) versions.sayCount();
    },
  });
  const { element, status, refresh } = versions;

  /** A message with an Undo button, which gets the focus (the rollback or restore happened at once, unasked). */
  const offerUndo = (message: string, undo: () => Promise<void>) => {
    const button = h("button", { type: "button", class: "secondary undo" }, "Undo");
    button.addEventListener("click", () => {
      button.disabled = true;
      undo().catch((error: unknown) => status.say(`Could not undo: ${messageOf(error)}`));
    });
    status.show(`${message} `, button);
    button.focus();
  };
  const endUndo = () => {
    const button = status.element.querySelector("button");
    if (button === document.activeElement) element.querySelector<HTMLElement>("h2")?.focus();
    undoneBy = undefined;
    status.show();
  };

  const rollBack = (version: number, announce: string) =>
    client.restore(doc.id, version).then(async (result: Document) => {
      undoneBy = result.version;
      await refresh();
      // The state the rollback replaced became a milestone just before it (docs/interface.md#whole-text-changes).
      offerUndo(announce, () => rollBack(result.version - 1, "Rollback undone."));
    });

  function rollBackButton(version: number): HTMLButtonElement {
    const action = h("button", { type: "button" }, doc.deleted ? `Restore version ${version}` : `Roll back to version ${version}`);
    action.addEventListener("click", () => {
      action.disabled = true;
      const done = doc.deleted
        ? client.restore(doc.id, version).then(async () => {
            await refresh();
            status.say(`Version ${version} restored.`);
          })
        : rollBack(version, `Rolled back to version ${version}.`);
      done.catch((error: unknown) => status.say(`Could not restore: ${messageOf(error)}`)).finally(() => (action.disabled = false));
    });
    return action;
  }

  const stale = () => doc.version !== versions.entries().at(-1)?.version;
  doc.on("change", () => versions.follow(stale));
  doc.on("status", () => versions.follow(stale));
  doc.on("title", () => versions.follow());
  doc.on("deleted", () => versions.follow());
  doc.on("restored", () => versions.follow());

  save.addEventListener("click", () => {
    save.disabled = true;
    doc
      .saveMilestone()
      .then(async () => {
        savedHere.add(doc.version);
        await refresh();
        status.say("Version saved.");
      })
      .catch((error: unknown) => status.say(`Could not save the version: ${messageOf(error)}`))
      .finally(() => (save.disabled = false));
  });

  return { element, shown: versions.shown, hidden: versions.hidden };
}
