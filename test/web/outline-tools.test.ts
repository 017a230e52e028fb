import { EditorSelection, EditorState, Transaction, type StateCommand } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { boxCountText, countBoxes } from "../../web/box-count.js";
import { toggleBoxes } from "../../web/box-toggle.js";
import { insertOutline } from "../../web/insert-outline.js";
import { moveNodeDown, moveNodeUp, nodeSwap } from "../../web/move-node.js";
import { nodeFoldRange } from "../../web/fold-ranges.js";

// The outliner's commands on a bare editor state (the page binds them to keys and buttons): each is
// one transaction with a user event, so the live document sends it and undo takes it back whole.

function editor(text: string, cursor: number | [number, number] = 0) {
  const [anchor, head] = typeof cursor === "number" ? [cursor, cursor] : cursor;
  let state = EditorState.create({ doc: text, selection: EditorSelection.single(anchor, head) });
  const events: string[] = [];
  const run = (command: StateCommand) =>
    command({
      state,
      dispatch: (tr: Transaction) => {
        events.push(tr.annotation(Transaction.userEvent) ?? "none");
        state = tr.state;
      },
    });
  return { run, events, text: () => state.doc.toString(), line: () => state.doc.lineAt(state.selection.main.head).text };
}

const OUTLINE = "Launch\n  [ ] Write notes\n    draft\n  [x] Test upgrade\n\n  Announce\nRetro";

describe("moving a node with its children", () => {
  it("swaps the node and its children with the sibling above or below, the cursor staying in the node", () => {
    const e = editor(OUTLINE, OUTLINE.indexOf("Write"));
    e.run(moveNodeDown);
    expect(e.text()).toEqual("Launch\n  [x] Test upgrade\n  [ ] Write notes\n    draft\n\n  Announce\nRetro");
    expect(e.line()).toEqual("  [ ] Write notes");
    e.run(moveNodeDown);
    expect(e.text()).toEqual("Launch\n  [x] Test upgrade\n  Announce\n  [ ] Write notes\n    draft\n\nRetro");
    e.run(moveNodeDown);
    expect(e.text()).toEqual("Launch\n  [x] Test upgrade\n  Announce\n  [ ] Write notes\n    draft\n\nRetro");
    e.run(moveNodeUp);
    e.run(moveNodeUp);
    expect(e.text()).toEqual("Launch\n  [ ] Write notes\n    draft\n  [x] Test upgrade\n  Announce\n\nRetro");
    expect(e.line()).toEqual("  [ ] Write notes");
    // The last child stays where it is: no edit at all.
    expect(e.events).toEqual(["move.line", "move.line", "move.line", "move.line"]);
  });

  it("never takes a node out of its parent, nor moves a blank line", () => {
    const lines = OUTLINE.split("\n");
    expect([nodeSwap(lines, 1, "up"), nodeSwap(lines, 5, "down"), nodeSwap(lines, 4, "up"), nodeSwap(lines, 0, "up")]).toEqual([undefined, undefined, undefined, undefined]);
    expect(nodeSwap(lines, 6, "up")).toEqual({ first: [0, 5], second: [6, 6] });
  });
});

describe("check boxes", () => {
  it("toggles the box of each selected line, and gives a line without one an open box, in one edit", () => {
    const e = editor(OUTLINE, [OUTLINE.indexOf("Write"), OUTLINE.indexOf("Test")]);
    e.run(toggleBoxes);
    expect(e.text()).toEqual("Launch\n  [x] Write notes\n    [ ] draft\n  [ ] Test upgrade\n\n  Announce\nRetro");
    expect(e.events).toEqual(["input.toggle"]);
  });

  it("counts the done and all boxes of the document or of some lines", () => {
    const state = EditorState.create({ doc: OUTLINE });
    expect(boxCountText(countBoxes(state.doc))).toEqual("1 of 2 done");
    expect(countBoxes(state.doc, 3, 7)).toEqual({ done: 1, total: 1 });
    expect(boxCountText({ done: 0, total: 0 })).toEqual("");
  });
});

describe("folding by indentation", () => {
  it("folds a node's children (blank lines inside included), and nothing of a leaf or a blank line", () => {
    const state = EditorState.create({ doc: OUTLINE });
    const line = (number: number) => state.doc.line(number);
    expect(nodeFoldRange(state, line(1).from)).toEqual({ from: line(1).to, to: line(6).to });
    expect(nodeFoldRange(state, line(2).from)).toEqual({ from: line(2).to, to: line(3).to });
    expect([nodeFoldRange(state, line(3).from), nodeFoldRange(state, line(5).from), nodeFoldRange(state, line(7).from)]).toEqual([null, null, null]);
  });
});

describe("importing into the open document", () => {
  it("puts the outline after the cursor's node and its children, at its depth, as one paste", () => {
    const state = EditorState.create({ doc: OUTLINE, selection: EditorSelection.cursor(OUTLINE.indexOf("Write")) });
    const next = state.update(insertOutline(state, "Imported\n  [ ] child")).state;
    expect(next.doc.toString()).toEqual("Launch\n  [ ] Write notes\n    draft\n  Imported\n    [ ] child\n  [x] Test upgrade\n\n  Announce\nRetro");
    expect(next.doc.lineAt(next.selection.main.head).text).toEqual("  Imported");
    const empty = EditorState.create({ doc: "" });
    expect(empty.update(insertOutline(empty, "a\n  b")).state.doc.toString()).toEqual("a\n  b");
  });
});
