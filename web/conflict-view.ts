/**
 * The conflict view, for a client that reports conflicts instead of merging them: both texts and
 * "Keep theirs" / "Keep mine". The editor is read-only until one is chosen.
 */
import type { Conflict } from "../src/client/index.js";
import type { BoundEditor } from "./editor.js";
import { h, replace } from "./dom.js";

export function conflictView(editor: () => BoundEditor, deleted: () => boolean): { element: HTMLElement; show: (conflict: Conflict) => void } {
  const element = h("section", { class: "conflict", hidden: true, "aria-labelledby": "conflict-heading" });
  const show = (conflict: Conflict) => {
    editor().setReadOnly(true);
    const choose = (choice: "theirs" | "mine") => () => {
      element.hidden = true;
      replace(element);
      conflict.resolve(choice);
      editor().setReadOnly(deleted());
      editor().view.focus();
    };
    replace(
      element,
      h("h2", { id: "conflict-heading", tabindex: -1 }, "Someone changed the same lines"),
      h("p", {}, "Your edit and theirs overlap. Choose which text to keep; the other is dropped."),
      h(
        "div",
        { class: "conflict-texts" },
        h("figure", {}, h("figcaption", {}, "Theirs (on the service)"), h("pre", { class: "theirs" }, conflict.theirs)),
        h("figure", {}, h("figcaption", {}, "Mine (this page)"), h("pre", { class: "mine" }, conflict.mine)),
      ),
      h("div", { class: "row" }, h("button", { type: "button", onclick: choose("theirs") }, "Keep theirs"), h("button", { type: "button", onclick: choose("mine") }, "Keep mine")),
    );
    element.hidden = false;
    element.querySelector<HTMLElement>("h2")?.focus();
  };
  return { element, show };
}
