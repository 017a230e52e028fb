/**
 * Toggling check boxes as one edit (docs/editor.md#check-boxes): the box of each line the selection
 * touches flips between `[ ]` and `[x]`, and a line without one gets an open box. Pure: a state
 * command, no DOM; check-boxes.ts binds it to Ctrl+Enter and to a click on a box.
 */
import type { StateCommand } from "@codemirror/state";
import { parseLine } from "../src/core/outline-notation.js";

/** The change that toggles the box of the line starting at `from` (or adds an open one). */
export function toggleAt(text: string, from: number): { from: number; to: number; insert: string } | undefined {
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

