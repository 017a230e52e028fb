/**
 * The editor's keys (docs/editor.md#keyboard): Enter starts a sibling node (it keeps the line's
 * indentation, and after a check-box line a new `[ ] `; Enter on an empty check-box line takes the box
 * away); Tab and Shift+Tab indent and outdent the selected lines by two spaces, the cursor staying with
 * the text (CodeMirror's indentWithTab convention: Escape then Tab leaves the editor); Alt+→ / Alt+←
 * do the same except on macOS, where Option+←/→ jump by words; undo and redo of one's own edits; and
 * CodeMirror's default keymap for everything else (Ctrl+Home / Ctrl+End, word moves, Alt+↑ / Alt+↓
 * move lines, Ctrl+[ / Ctrl+] outdent and indent, Ctrl+M turns Tab's indenting off).
 */
import { defaultKeymap, historyKeymap, indentLess, indentMore, indentWithTab } from "@codemirror/commands";
import { EditorSelection, type StateCommand } from "@codemirror/state";
import type { KeyBinding } from "@codemirror/view";
import { parseLine } from "../src/core/outline-notation.js";

/**
 * Enter keeps the indentation of the current line (up to the cursor), so that a new node becomes a
 * sibling; after a node with a box the new node gets an open box. On a line that is only its box
 * (an empty check-box item), Enter takes the box away instead, ending the checklist.
 */
export const newlineKeepingIndent: StateCommand = ({ state, dispatch }) => {
  if (state.readOnly) return false;
  const transaction = state.update(
    state.changeByRange((range) => {
      const line = state.doc.lineAt(range.from);
      const parsed = parseLine(line.text);
      const boxEnd = parsed.box ? line.from + parsed.box.to : -1;
      // The box counts once the cursor is past it and its space: "[ ] |".
      const afterBox = parsed.box !== undefined && range.from > boxEnd;
      if (afterBox && range.empty && line.text.slice(parsed.box!.to).trim() === "") {
        return { changes: { from: line.from + parsed.box!.from, to: line.to }, range: EditorSelection.cursor(line.from + parsed.box!.from) };
      }
      const indent = line.text.slice(0, parsed.indentLength).slice(0, Math.max(0, range.from - line.from));
      const box = afterBox ? "[ ] " : "";
      const insert = `\n${indent}${box}`;
      return { changes: { from: range.from, to: range.to, insert }, range: EditorSelection.cursor(range.from + insert.length) };
    }),
    { scrollIntoView: true, userEvent: "input" },
  );
  dispatch(transaction);
  return true;
};

/** macOS, where Option+←/→ is the word jump that Alt+←/→ must not take. */
const onMac = /Mac|iPhone|iPad|iPod/.test((globalThis as { navigator?: { platform?: string } }).navigator?.platform ?? "");

/** Earlier bindings win: the outline's own keys come before CodeMirror's defaults for the same key. */
export const outlineKeymap: readonly KeyBinding[] = [
  { key: "Enter", run: newlineKeepingIndent },
  indentWithTab,
  ...(onMac
    ? []
    : [
        { key: "Alt-ArrowRight", run: indentMore },
        { key: "Alt-ArrowLeft", run: indentLess },
      ]),
  ...historyKeymap,
  ...defaultKeymap,
];
