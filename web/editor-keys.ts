/**
 * The editor's keys: Enter starts a sibling node (it keeps the line's indentation), Alt+→ / Alt+←
 * indent and outdent the selected lines by two spaces with the cursor and selection staying with the
 * text at any column (CodeMirror's indentMore / indentLess), undo and redo of one's own edits, and
 * CodeMirror's default keymap for everything else (Ctrl+Home / Ctrl+End, word moves, Alt+↑ / Alt+↓
 * to move lines, Ctrl+[ / Ctrl+] to outdent and indent). Tab is not bound: it leaves the editor.
 */
import { defaultKeymap, historyKeymap, indentLess, indentMore } from "@codemirror/commands";
import { EditorSelection, type StateCommand } from "@codemirror/state";
import type { KeyBinding } from "@codemirror/view";

/** Enter keeps the indentation of the current line (up to the cursor), so that a new node becomes a sibling. */
export const newlineKeepingIndent: StateCommand = ({ state, dispatch }) => {
  if (state.readOnly) return false;
  const transaction = state.update(
    state.changeByRange((range) => {
      const line = state.doc.lineAt(range.from);
      const indent = /^[ \t]*/.exec(line.text)?.[0] ?? "";
      const insert = `\n${indent.slice(0, Math.max(0, range.from - line.from))}`;
      return { changes: { from: range.from, to: range.to, insert }, range: EditorSelection.cursor(range.from + insert.length) };
    }),
    { scrollIntoView: true, userEvent: "input" },
  );
  dispatch(transaction);
  return true;
};

/** Earlier bindings win: the outline's own keys come before CodeMirror's defaults for the same key. */
export const outlineKeymap: readonly KeyBinding[] = [
  { key: "Enter", run: newlineKeepingIndent },
  { key: "Alt-ArrowRight", run: indentMore },
  { key: "Alt-ArrowLeft", run: indentLess },
  ...historyKeymap,
  ...defaultKeymap,
];
