/**
 * "Here now" in a document page's header (docs/editor.md, "Who is here"): a button that says how many
 * people are at the document (this page included) and opens the list of them, editors and viewers,
 * each with the colour of their cursor. The button is in the tab order and tells whether the list is
 * open (aria-expanded); the list is labelled for screen readers; Escape closes it and gives the focus
 * back to the button.
 */
import h from "crelt";
import type { PresencePeer } from "../src/client/index.js";
import type { PresenceSource } from "./peer-cursors.js";
import { colourOf, nameOf } from "./peer-decorations.js";
import { replace } from "./replace-children.js";

export interface HereNow {
  element: HTMLElement;
  /** Shows the list again (this page's own name changed). */
  refresh: () => void;
}

const ROLE: Record<PresencePeer["role"], string> = { editor: "editing", viewer: "viewing" };

export function hereNow(source: PresenceSource, self: () => { name: string; role: PresencePeer["role"] }): HereNow {
  const list = h("ul", { id: "here-now-list", class: "here-now-list", "aria-label": "People here now", hidden: true });
  const button = h("button", { type: "button", class: "secondary here-now-toggle", "aria-expanded": "false", "aria-controls": list.id });
  const element = h("div", { class: "here-now" }, button, list);
  let others: PresencePeer[] = source.presence.others;

  const item = (name: string, detail: string, colour: number | undefined) =>
    h("li", {}, h("span", { class: colour === undefined ? "peer-dot self" : `peer-dot peer-${colour}`, "aria-hidden": "true" }), h("span", { class: "here-name" }, name), " ", h("span", { class: "muted" }, detail));
  const render = () => {
    const count = others.length + 1;
    button.textContent = `${count} here now`;
    const me = self();
    replace(
      list,
      item(me.name === "" ? "You" : `${me.name} (you)`, ROLE[me.role], undefined),
      ...others.map((peer) => item(nameOf(peer), ROLE[peer.role], colourOf(peer.clientId))),
    );
  };
  const open = (shown: boolean) => {
    list.hidden = !shown;
    button.setAttribute("aria-expanded", String(shown));
  };
  button.addEventListener("click", () => open(list.hidden));
  element.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || list.hidden) return;
    // This Escape closes the list only, not a side panel as well (panels.ts).
    event.preventDefault();
    event.stopPropagation();
    open(false);
    button.focus();
  });
  document.addEventListener("click", (event) => {
    if (!list.hidden && !element.contains(event.target as Node)) open(false);
  });
  source.on("presence", (next) => {
    others = next;
    render();
  });
  render();
  return { element, refresh: render };
}
