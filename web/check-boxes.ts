/**
 * Check boxes that work (docs/editor.md#check-boxes): a click on a `[ ]` / `[x]` box, or Ctrl+Enter
 * (Cmd+Enter) on its line, toggles it; Ctrl+Enter on a line without a box gives it an open one. Each
 * toggle is one ordinary edit of the text (a transaction with a user event), so it is sent, merged and
 * undone like typing. Enter continuing a checklist is editor-keys.ts's; the count is the outline bar's.
 */
import { EditorSelection, Prec, type Extension } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { toggleAt, toggleBoxes } from "./box-toggle.js";

/** A click on a box (the outline's `cm-box` mark) toggles it, unless the text is read-only. */
const clickToToggle = EditorView.domEventHandlers({
  mousedown(event, view) {
    const box = event.button === 0 && event.target instanceof Element ? event.target.closest(".cm-box") : null;
    if (!box || view.state.readOnly || event.shiftKey || event.ctrlKey || event.metaKey || event.altKey) return false;
    const line = view.state.doc.lineAt(view.posAtDOM(box));
    const change = toggleAt(line.text, line.from);
    if (!change) return false;
    event.preventDefault();
    view.dispatch({ changes: change, selection: EditorSelection.cursor(line.to + change.insert.length - (change.to - change.from)), userEvent: "input.toggle" });
    view.focus();
    return true;
  },
});

export function checkBoxes(): Extension {
  return [Prec.high(keymap.of([{ key: "Mod-Enter", run: toggleBoxes }])), clickToToggle];
}
