import { history, redo, undo } from "@codemirror/commands";
import { EditorState, Transaction } from "@codemirror/state";
import { describe, expect, it } from "vitest";

// The editor keeps CodeMirror's history and lets remote edits in with addToHistory false
// (web/editor.ts), so that undo reverts only the local author's edits. These tests hold that
// binding to its promise on a bare editor state, driven as the page drives it.

/** An editor state with the page's history, local edits at a given time and remote ones. */
function editor(text: string) {
  let state = EditorState.create({ doc: text, extensions: history() });
  const target = () => ({ state, dispatch: (tr: Transaction) => void (state = tr.state) });
  return {
    text: () => state.doc.toString(),
    local: (from: number, to: number, insert: string, at: number) => {
      state = state.update({ changes: { from, to, insert }, annotations: Transaction.time.of(at), userEvent: "input.type" }).state;
    },
    remote: (from: number, to: number, insert: string) => {
      state = state.update({ changes: { from, to, insert }, annotations: Transaction.addToHistory.of(false) }).state;
    },
    undo: () => undo(target()),
    redo: () => redo(target()),
  };
}

describe("undo of one's own edits", () => {
  it("reverts only the local edit, where a co-author's edit moved it", () => {
    const e = editor("alpha\nbeta");
    e.local(5, 5, " one", 0);
    e.remote(0, 0, "intro\n");
    e.remote(e.text().length, e.text().length, "\ngamma");
    expect(e.text()).toEqual("intro\nalpha one\nbeta\ngamma");
    expect(e.undo()).toEqual(true);
    expect(e.text()).toEqual("intro\nalpha\nbeta\ngamma");
    expect(e.undo()).toEqual(false);
    expect(e.redo()).toEqual(true);
    expect(e.text()).toEqual("intro\nalpha one\nbeta\ngamma");
  });

  it("takes typing without a pause as one step, and a pause starts the next", () => {
    const e = editor("");
    e.local(0, 0, "a", 0);
    e.local(1, 1, "b", 100);
    e.local(2, 2, "c", 2000);
    expect(e.text()).toEqual("abc");
    e.undo();
    expect(e.text()).toEqual("ab");
    e.undo();
    expect(e.text()).toEqual("");
  });

  it("walks several steps back over remote edits between them, and a new edit drops the redo steps", () => {
    const e = editor("x");
    e.local(1, 1, "1", 0);
    e.remote(0, 0, "R");
    e.local(3, 3, "2", 5000);
    e.remote(0, 0, "S");
    expect(e.text()).toEqual("SRx12");
    e.undo();
    e.undo();
    expect(e.text()).toEqual("SRx");
    e.local(3, 3, "!", 9000);
    expect(e.redo()).toEqual(false);
    expect(e.text()).toEqual("SRx!");
  });
});
