/**
 * Where an imported outline goes in the open document (docs/editor.md#export-and-import): right
 * after the node at the cursor and all its children, at that node's depth, so the file's top-level
 * nodes become its next siblings; into an empty document it goes whole. One transaction, with a user
 * event: sent, merged and undone like a paste.
 */
import { EditorSelection, type EditorState, type TransactionSpec } from "@codemirror/state";
import { parseLine, subtreeEnd } from "../src/core/outline-notation.js";

export function insertOutline(state: EditorState, text: string): TransactionSpec {
  if (state.doc.length === 0) return { changes: { from: 0, insert: text }, selection: EditorSelection.cursor(0), userEvent: "input.paste", scrollIntoView: true };
  const lines = state.doc.toJSON();
  const cursor = state.doc.lineAt(state.selection.main.head).number - 1;
  const end = state.doc.line(subtreeEnd(lines, cursor) + 1);
  const current = state.doc.line(cursor + 1).text;
  const indent = current.slice(0, parseLine(current).indentLength);
  const block = text
    .split("\n")
    .map((line) => (line === "" ? "" : indent + line))
    .join("\n");
  return { changes: { from: end.to, insert: `\n${block}` }, selection: EditorSelection.cursor(end.to + 1 + indent.length), userEvent: "input.paste", scrollIntoView: true };
}
