/**
 * What folds in the outline (docs/editor.md#folding): a node with children, from the end of its line
 * to the end of its last descendant (blank lines inside it included). Pure: no DOM.
 */
import type { EditorState } from "@codemirror/state";
import { indentWidth } from "../src/core/outline-notation.js";

/** The indentation of a line in columns, or -1 for a blank line (read without a regular expression: the gutter asks per line). */
function indentOf(text: string): number {
  const rest = text.trimStart();
  return rest === "" ? -1 : indentWidth(text.slice(0, text.length - rest.length));
}

/** The range a node's children take: from the end of its line to the end of its last descendant. */
export function nodeFoldRange(state: EditorState, lineStart: number): { from: number; to: number } | null {
  const line = state.doc.lineAt(lineStart);
  const own = indentOf(line.text);
  if (own < 0) return null;
  let last = line.number;
  for (let number = line.number + 1; number <= state.doc.lines; number++) {
    const indent = indentOf(state.doc.line(number).text);
    if (indent < 0) continue;
    if (indent <= own) break;
    last = number;
  }
  return last > line.number ? { from: line.to, to: state.doc.line(last).to } : null;
}

