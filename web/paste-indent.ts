/**
 * A paste of several lines keeps its own relative indentation under the line it lands on
 * (docs/editor.md, "Keyboard"): the pasted lines lose the indentation they all share, and every line
 * after the first gets the target line's indentation (up to the cursor), as Enter would give it. So a
 * block of nodes copied from anywhere lands as a block of siblings and children where it is put. The
 * first line counts (and loses its share) only when it starts a node, pasted where nothing but
 * indentation is before the cursor; pasted after text, it is the rest of a copied line and stays whole.
 */
import { EditorView } from "@codemirror/view";

/** `text` as pasted at `column` of a line reading `lineText`. */
export function indentPasted(text: string, lineText: string, column: number): string {
  const lines = text.split("\n");
  if (lines.length < 2) return text;
  const indent = /^[ \t]*/.exec(lineText)![0];
  const target = indent.slice(0, column);
  const startsNode = column <= indent.length;
  const counted = (startsNode ? lines : lines.slice(1)).filter((line) => line.trim() !== "");
  const shared = Math.min(...counted.map((line) => /^[ \t]*/.exec(line)![0].length));
  const strip = Number.isFinite(shared) ? shared : 0;
  return lines.map((line, index) => (index === 0 ? (startsNode ? line.slice(strip) : line) : line.trim() === "" ? "" : target + line.slice(strip))).join("\n");
}

export const pasteKeepsIndent = EditorView.clipboardInputFilter.of((text, state) => {
  const { from } = state.selection.main;
  const line = state.doc.lineAt(from);
  return indentPasted(text, line.text, from - line.from);
});
