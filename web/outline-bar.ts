/**
 * The outline bar under the text (docs/editor.md#the-outline-bar): how many check boxes are done
 * ("3 of 7 done"), Fold all and Unfold all, and, on a narrow touch screen (no Tab, no Alt), Indent,
 * Outdent, Move up and Move down for the node at the cursor. The buttons keep the focus in the text
 * (a phone's keyboard stays open) and run the same commands as the keys.
 */
import { indentLess, indentMore } from "@codemirror/commands";
import { foldAll, unfoldAll } from "@codemirror/language";
import type { Extension } from "@codemirror/state";
import { showPanel, type Command, type EditorView, type Panel, type ViewUpdate } from "@codemirror/view";
import h from "crelt";
import { boxCountText, countBoxes } from "./box-count.js";
import { moveNodeDown, moveNodeUp } from "./move-node.js";

function button(view: EditorView, label: string, text: string, command: Command, className = ""): HTMLButtonElement {
  const element = h("button", { type: "button", class: `secondary ${className}`.trim(), "aria-label": label, title: label }, text);
  // Pressing a button must not take the focus out of the text: on a phone that would close the keyboard.
  element.addEventListener("mousedown", (event) => event.preventDefault());
  element.addEventListener("click", () => {
    command(view);
    view.focus();
  });
  return element;
}

function outlineBar(editable: boolean) {
  return (view: EditorView): Panel => {
    const count = h("span", { class: "box-count", "aria-label": "check boxes" });
    const touch = editable
      ? h(
          "span",
          { class: "touch-tools", role: "group", "aria-label": "Outline editing" },
          button(view, "Outdent", "⇤", (target) => indentLess(target)),
          button(view, "Indent", "⇥", (target) => indentMore(target)),
          button(view, "Move up", "↑", (target) => moveNodeUp(target)),
          button(view, "Move down", "↓", (target) => moveNodeDown(target)),
        )
      : undefined;
    const show = () => {
      const text = boxCountText(countBoxes(view.state.doc));
      count.textContent = text === "" ? "No check boxes" : `Check boxes: ${text}`;
    };
    show();
    const dom = h("div", { class: "outline-bar" }, count, touch, h("span", { class: "fold-tools" }, button(view, "Fold all", "Fold all", foldAll), button(view, "Unfold all", "Unfold all", unfoldAll)));
    // Counting reads every line: done once typing pauses, never per keystroke.
    let timer: ReturnType<typeof setTimeout> | undefined;
    return {
      dom,
      update(update: ViewUpdate) {
        if (!update.docChanged) return;
        clearTimeout(timer);
        timer = setTimeout(show, 250);
      },
      destroy: () => clearTimeout(timer),
    };
  };
}

export function outlineBarPanel(options: { editable: boolean }): Extension {
  return showPanel.of(outlineBar(options.editable));
}
