import { EditorSelection, EditorState, type StateCommand, type Transaction } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { indentLess, indentMore } from "@codemirror/commands";
import { newlineKeepingIndent, outlineKeymap } from "../../web/editor-keys.js";

// The page's keys on a bare editor state, driven as a person types: text goes in at the cursor,
// a key runs the command the page binds to it.

function editor(text: string, cursor = text.length) {
  let state = EditorState.create({ doc: text, selection: EditorSelection.cursor(cursor) });
  const run = (command: StateCommand) => command({ state, dispatch: (tr: Transaction) => void (state = tr.state) });
  const key = (name: string) => {
    const binding = outlineKeymap.find((entry) => entry.key === name);
    if (!binding?.run) throw new Error(`no binding for ${name}`);
    // The bound commands read only state and dispatch (StateCommand), as the view passes them.
    return run(binding.run as unknown as StateCommand);
  };
  const type = (typed: string) => {
    state = state.update(state.replaceSelection(typed), { userEvent: "input.type" }).state;
  };
  const show = () => {
    const head = state.selection.main.head;
    return `${state.doc.sliceString(0, head)}|${state.doc.sliceString(head)}`;
  };
  return { key, type, show };
}

describe("the outline's keys", () => {
  it("types the outline the page's hint describes: Enter for a sibling, Alt+→ / Alt+← to indent and outdent", () => {
    const e = editor("");
    e.type("Launch");
    e.key("Enter");
    e.key("Alt-ArrowRight");
    e.type("[ ] Write notes");
    e.key("Enter");
    e.type("Test upgrade");
    e.key("Enter");
    e.key("Enter");
    e.key("Alt-ArrowRight");
    e.type("on staging");
    e.key("Enter");
    e.key("Alt-ArrowLeft");
    e.key("Alt-ArrowLeft");
    e.type("Announce");
    expect(e.show()).toEqual("Launch\n  [ ] Write notes\n  [ ] Test upgrade\n    on staging\nAnnounce|");
  });

  it("keeps the cursor with the text at any column when indenting and outdenting", () => {
    const e = editor("a\nbeta\nc", 4);
    expect(e.show()).toEqual("a\nbe|ta\nc");
    e.key("Alt-ArrowRight");
    expect(e.show()).toEqual("a\n  be|ta\nc");
    e.key("Alt-ArrowLeft");
    e.key("Alt-ArrowLeft");
    expect(e.show()).toEqual("a\nbe|ta\nc");
    const start = editor("x\n", 2);
    start.key("Alt-ArrowRight");
    expect(start.show()).toEqual("x\n  |");
  });

  it("keeps the indentation up to the cursor on Enter, and binds CodeMirror's defaults (Ctrl+End, Ctrl+Home)", () => {
    const e = editor("  [ ] one", 5);
    expect(newlineKeepingIndent).toBe(outlineKeymap.find((entry) => entry.key === "Enter")?.run);
    e.key("Enter");
    expect(e.show()).toEqual("  [ ]\n  | one");
    expect(outlineKeymap.filter((entry) => entry.key === "Mod-End" || entry.key === "Mod-Home").length).toEqual(2);
  });

  it("continues a checklist: Enter after a box line starts an open box at its depth, Enter on an empty box ends it", () => {
    const e = editor("Launch\n  [x] Write notes");
    e.key("Enter");
    expect(e.show()).toEqual("Launch\n  [x] Write notes\n  [ ] |");
    e.type("Test");
    e.key("Enter");
    e.key("Enter");
    expect(e.show()).toEqual("Launch\n  [x] Write notes\n  [ ] Test\n  |");
    const middle = editor("[ ] one two", 7);
    middle.key("Enter");
    expect(middle.show()).toEqual("[ ] one\n[ ] | two");
  });

  it("indents with Tab and outdents with Shift+Tab, the cursor staying with the text", () => {
    const e = editor("a\nbeta\nc", 4);
    const tab = outlineKeymap.find((entry) => entry.key === "Tab");
    expect([tab?.run, tab?.shift]).toEqual([indentMore, indentLess]);
    e.key("Tab");
    expect(e.show()).toEqual("a\n  be|ta\nc");
  });
});
