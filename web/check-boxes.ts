/**
 * Check boxes that work (docs/editor.md#check-boxes): a click on a `[ ]` / `[x]` box, or Ctrl+Enter
 * (Cmd+Enter) on its line, toggles it; Ctrl+Enter on a line without a box gives it an open one. Each
 * toggle is one ordinary edit of the text (a transaction with a user event), so it is sent, merged and
 * undone like typing. Enter continuing a checklist is editor-keys.ts's; the count is the outline bar's.
 */
import { EditorSelection, Prec, type Extension, type StateCommand } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { parseLine } from "../src/core/outline-notation.js";

/** The change that toggles the box of the line starting at `from` (or adds an open one). */
function toggleAt(text: string, from: number): { from: number; to: number; insert: string } | undefined {
  const parsed = parseLine(text);
  if (parsed.blank) return undefined;
  if (!parsed.box) return { from: from + parsed.indentLength, to: from + parsed.indentLength, insert: "[ ] " };
  return { from: from + parsed.box.from, to: from + parsed.box.to, insert: parsed.box.done ? "[ ]" : "[x]" };
}

/** Toggles the box of every line the selection touches (each line once). */
export const toggleBoxes: StateCommand = ({ state, dispatch }) => {
  if (state.readOnly) return false;
  const seen = new Set<number>();
  const changes = [];
  for (const range of state.selection.ranges) {
    for (let number = state.doc.lineAt(range.from).number; number <= state.doc.lineAt(range.to).number; number++) {
      if (seen.has(number)) continue;
      seen.add(number);
      const line = state.doc.line(number);
      const change = toggleAt(line.text, line.from);
      if (change) changes.push(change);
    }
  }
  if (changes.length === 0) return true;
  const set = state.changes(changes);
  dispatch(state.update({ changes: set, selection: state.selection.map(set), userEvent: "input.toggle", scrollIntoView: true }));
  return true;
};

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
