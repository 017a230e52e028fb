/**
 * The Share panel of the edit page (docs/sharing.md): the edit link and the read-only link, each with
 * what it grants and a Copy button; the read-only link is made on demand, replaced by a new one (the
 * old stops working) or removed. Opened from the toolbar like the other panels (panels.ts: Escape
 * closes it). Copy uses the Clipboard API, else selects the link for the reader to copy.
 */
import h from "crelt";
import { FolioError, type FolioClient } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import { replace } from "./replace-children.js";
import { statusLine, type StatusLine } from "./status-line.js";
import { editLink, readOnlyLink } from "./links.js";

export interface SharePanel {
  element: HTMLElement;
  /** Reads the current read-only link (the panel was opened). */
  shown: () => void;
}

type ReadLinkState = { kind: "loading" } | { kind: "none" } | { kind: "shared"; readId: string } | { kind: "failed"; error: unknown };

/** `key`: an encrypted document's key, put in both links' fragments (docs/encryption.md). */
export function sharePanel(client: FolioClient, documentId: string, key?: string): SharePanel {
  const status = statusLine("panel-status");
  const readSection = h("div", { class: "share-read" });
  const element = h(
    "section",
    { class: "panel share", "aria-labelledby": "share-heading" },
    h("h2", { id: "share-heading", tabindex: "-1" }, "Share"),
    h("h3", {}, "Edit link"),
    h("p", { class: "share-grant" }, "Anyone with this link can change, rename, delete and restore the document. Give it only to people who may edit."),
    key !== undefined
      ? h("p", { class: "share-grant share-key" }, "This document is encrypted: both links end with its key (after #key=), which your browser never sends to the service. Whoever has a link can decrypt the document. A new read-only link, or stopping sharing, ends a link's access through the service, but not its key: to take the key away too, use Change key.")
      : undefined,
    linkRow("edit", "Edit link", editLink(documentId, key), status),
    h("h3", {}, "Read-only link"),
    h("p", { class: "share-grant" }, "Anyone with this link can read the document, its history and its authors' names, see who is here now, and follow it live, but cannot change anything."),
    readSection,
    status.element,
  );

  let busy = false;
  const act = (action: () => Promise<ReadLinkState>, done: string, focus: string) => {
    if (busy) return;
    busy = true;
    for (const button of readSection.querySelectorAll("button")) button.disabled = true;
    status.say("");
    action()
      .then((state) => {
        render(state);
        status.say(done);
      })
      .catch((error: unknown) => {
        render(current);
        status.say(`Could not change the read-only link: ${messageOf(error)}`);
      })
      .finally(() => {
        busy = false;
        readSection.querySelector<HTMLElement>(focus)?.focus();
      });
  };
  const create = (): Promise<ReadLinkState> => client.read.createLink(documentId).then(({ readId }) => ({ kind: "shared", readId }));

  let current: ReadLinkState = { kind: "loading" };
  const render = (state: ReadLinkState) => {
    current = state;
    switch (state.kind) {
      case "loading":
        replace(readSection, h("p", { class: "muted" }, "Looking for a read-only link…"));
        return;
      case "failed": {
        const again = h("button", { type: "button", class: "secondary" }, "Try again");
        again.addEventListener("click", load);
        replace(readSection, h("p", {}, `Could not read the read-only link: ${messageOf(state.error)}`), again);
        return;
      }
      case "none": {
        const make = h("button", { type: "button", class: "share-make" }, "Make a read-only link");
        make.addEventListener("click", () => act(create, "Made a read-only link.", ".copy-read"));
        replace(readSection, h("p", {}, "This document is not shared read-only."), make);
        return;
      }
      case "shared": {
        const rotate = h("button", { type: "button", class: "secondary share-rotate" }, "New read-only link");
        rotate.addEventListener("click", () => act(create, "Made a new read-only link: the old one no longer works.", ".copy-read"));
        const stop = h("button", { type: "button", class: "danger share-stop" }, "Stop sharing read-only");
        stop.addEventListener("click", () =>
          act(() => client.read.deleteLink(documentId).then(() => ({ kind: "none" })), "Stopped sharing read-only: the read-only link no longer works.", ".share-make"),
        );
        replace(
          readSection,
          linkRow("read", "Read-only link", readOnlyLink(state.readId, key), status),
          h("div", { class: "share-action" }, rotate, h("p", { class: "share-grant" }, "Makes a new link in place of this one: the current read-only link stops working at once, and pages open on it say so.")),
          h("div", { class: "share-action" }, stop, h("p", { class: "share-grant" }, "The read-only link stops working; the edit link keeps working.")),
        );
        return;
      }
    }
  };

  function load(): void {
    render({ kind: "loading" });
    void client.read
      .link(documentId)
      .then(({ readId }): ReadLinkState => ({ kind: "shared", readId }))
      .catch((error: unknown): ReadLinkState => (error instanceof FolioError && error.status === 404 ? { kind: "none" } : { kind: "failed", error }))
      .then((state) => {
        if (!busy) render(state);
      });
  }

  render(current);
  return { element, shown: load };
}

/** A link in a read-only text field (select it to copy by hand) and its Copy button. */
function linkRow(kind: "edit" | "read", label: string, link: string, status: StatusLine): HTMLElement {
  const field = h("input", { class: `share-link share-link-${kind}`, readonly: "", value: link, "aria-label": label, spellcheck: "false" });
  field.addEventListener("focus", () => field.select());
  const copy = h("button", { type: "button", class: `secondary copy-${kind}`, "aria-label": `Copy the ${label.toLowerCase()}` }, "Copy");
  copy.addEventListener("click", () => {
    const selectIt = () => {
      field.focus();
      field.select();
      status.say(`Copying is not allowed here: the ${label.toLowerCase()} is selected, press Ctrl+C (⌘C) to copy it.`);
    };
    if (!navigator.clipboard) return selectIt();
    navigator.clipboard.writeText(link).then(() => status.say(`Copied the ${label.toLowerCase()}.`), selectIt);
  });
  return h("div", { class: "share-row" }, field, copy);
}
