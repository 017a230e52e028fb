/**
 * Moving a node with its children (docs/editor.md#keyboard): Alt+Shift+↑ / Alt+Shift+↓ swap the node
 * at the cursor, with every line under it, with its previous or next sibling and that one's lines. A
 * node never leaves its parent (at the first or last child nothing moves). The move is one ordinary
 * edit with a user event, so it is sent, merged and undone like typing; the cursor stays in the node.
 */
import { EditorSelection, Prec, type EditorState, type Extension, type StateCommand } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { parseLine, subtreeEnd } from "../src/core/outline-notation.js";

/** Two adjacent blocks of whole lines, 0-based and inclusive: `first` right above `second`. */
interface Swap {
  first: [number, number];
  second: [number, number];
}

/** The nearest non-blank line at or after `from` going in `step` direction, or -1. */
function nearestNode(lines: readonly string[], from: number, step: 1 | -1): number {
  for (let k = from; k >= 0 && k < lines.length; k += step) if (!parseLine(lines[k]!).blank) return k;
  return -1;
}

/** The node block at line `index` and the sibling block it swaps with, or undefined at the edge. */
export function nodeSwap(lines: readonly string[], index: number, direction: "up" | "down"): Swap | undefined {
  // A blank line is no node: nothing moves.
  if (parseLine(lines[index] ?? "").blank) return undefined;
  const start = index;
  const own = parseLine(lines[start]!).indent;
  const end = subtreeEnd(lines, start);
  if (direction === "up") {
    const above = nearestNode(lines, start - 1, -1);
    if (above < 0) return undefined;
    // The sibling above: the nearest line above at the node's own indentation, with no shallower line between.
    let sibling = -1;
    for (let k = above; k >= 0; k--) {
      const line = parseLine(lines[k]!);
      if (line.blank || line.indent > own) continue;
      if (line.indent === own) sibling = k;
      break;
    }
    return sibling < 0 ? undefined : { first: [sibling, start - 1], second: [start, end] };
  }
  const below = nearestNode(lines, end + 1, 1);
  if (below < 0 || parseLine(lines[below]!).indent !== own) return undefined;
  return { first: [start, below - 1], second: [below, subtreeEnd(lines, below)] };
}

function moveNode(direction: "up" | "down"): StateCommand {
  return ({ state, dispatch }) => {
    if (state.readOnly) return false;
    const lines = state.doc.toJSON();
    const cursorLine = state.doc.lineAt(state.selection.main.head).number - 1;
    const swap = nodeSwap(lines, cursorLine, direction);
    if (!swap) return true;
    dispatch(swapTransaction(state, lines, swap, direction));
    return true;
  };
}

function swapTransaction(state: EditorState, lines: readonly string[], { first, second }: Swap, direction: "up" | "down") {
  const from = state.doc.line(first[0] + 1).from;
  const to = state.doc.line(second[1] + 1).to;
  const upper = lines.slice(first[0], first[1] + 1);
  const lower = lines.slice(second[0], second[1] + 1);
  // The node keeps the blank lines that were after it when it goes up, and before it when it goes down.
  const insert = [...lower, ...upper].join("\n");
  const moving = direction === "up" ? second : first;
  const movingFrom = state.doc.line(moving[0] + 1).from;
  const shift = direction === "up" ? from - movingFrom : from + lower.join("\n").length + 1 - movingFrom;
  const { anchor, head } = state.selection.main;
  const selection = EditorSelection.single(anchor + shift, head + shift);
  return state.update({ changes: { from, to, insert }, selection, userEvent: "move.line", scrollIntoView: true });
}

export const moveNodeUp = moveNode("up");
export const moveNodeDown = moveNode("down");

export function moveNodes(): Extension {
  return Prec.high(
    keymap.of([
      { key: "Alt-Shift-ArrowUp", run: moveNodeUp },
      { key: "Alt-Shift-ArrowDown", run: moveNodeDown },
    ]),
  );
}
