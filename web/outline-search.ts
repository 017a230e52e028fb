/**
 * Find and replace over the whole document (docs/editor.md#find-and-replace): CodeMirror's search
 * panel at the top of the editor, searching the document's text rather than the lines on screen
 * (CodeMirror draws only those), so a 5,000-line outline is searched whole. Ctrl+F (Cmd+F) opens it,
 * Enter / Shift+Enter or F3 go to the next / previous match, Ctrl+Alt+Enter replaces all, Escape
 * closes it and gives the text the focus back. A replacement is an ordinary edit, undone like typing.
 */
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { Prec, type Extension } from "@codemirror/state";
import { keymap } from "@codemirror/view";

export function outlineSearch(): Extension {
  return [search({ top: true }), highlightSelectionMatches(), Prec.high(keymap.of(searchKeymap))];
}
