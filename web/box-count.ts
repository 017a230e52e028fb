/**
 * How many check boxes a stretch of text has and how many are done (docs/editor.md#check-boxes): the
 * document's count under the editor, and each folded node's on its fold marker. Pure: no DOM.
 */
import type { Text } from "@codemirror/state";
import { parseLine } from "../src/core/outline-notation.js";

export interface BoxCount {
  done: number;
  total: number;
}

/** The boxes of the lines from `fromLine` to `toLine` (1-based, inclusive) of `doc`. */
export function countBoxes(doc: Text, fromLine = 1, toLine = doc.lines): BoxCount {
  let done = 0;
  let total = 0;
  for (let number = fromLine; number <= toLine; number++) {
    const box = parseLine(doc.line(number).text).box;
    if (!box) continue;
    total += 1;
    if (box.done) done += 1;
  }
  return { done, total };
}

/** "3 of 7 done", or "" when there are no boxes. */
export function boxCountText({ done, total }: BoxCount): string {
  return total === 0 ? "" : `${done} of ${total} done`;
}
