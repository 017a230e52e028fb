import { EditorState } from "@codemirror/state";
import { WidgetType } from "@codemirror/view";
import { describe, expect, it } from "vitest";
import type { PresencePeer } from "../../src/client/index.js";
import { colourOf, nameOf, peerField, setPeers, type CaretSpec } from "../../web/peer-decorations.js";

// The others' cursors in the editor (web/peer-decorations.ts): decorations made from a presence list and
// mapped through every transaction, so that a cursor stays on its characters while text is typed before it.

/** A caret that only says whose it is (nothing is drawn here). */
class Caret extends WidgetType {
  constructor(readonly name: string) {
    super();
  }
  toDOM(): never {
    throw new Error("not drawn in this test");
  }
}
const field = peerField((spec: CaretSpec) => new Caret(spec.name));

const ann: PresencePeer = { clientId: "c-ann", role: "editor", displayName: "Ann", cursor: { anchor: 6, head: 11 }, updatedAt: "2026-01-05T10:00:00.000Z" };

/** The decorations as [from, to, kind, class or name]. */
function shown(state: EditorState): Array<[number, number, string, string]> {
  const found: Array<[number, number, string, string]> = [];
  state.field(field).between(0, state.doc.length, (from, to, decoration) => {
    const spec = decoration.spec as { widget?: Caret; class?: string };
    found.push(spec.widget ? [from, to, "caret", spec.widget.name] : [from, to, "selection", String(spec.class)]);
  });
  return found;
}

describe("the others' cursors", () => {
  it("shows a selection and a caret at its head, and keeps them on their characters while text goes in before them", () => {
    let state = EditorState.create({ doc: "hello world", extensions: [field] });
    state = state.update({ effects: setPeers.of([ann]) }).state;
    const colour = colourOf("c-ann");
    expect(shown(state)).toEqual([
      [6, 11, "selection", `cm-peer-selection peer-${colour}`],
      [11, 11, "caret", "Ann"],
    ]);
    state = state.update({ changes: { from: 0, insert: "oh, " } }).state;
    state = state.update({ changes: { from: 4, to: 9, insert: "HELLO there" } }).state;
    expect(state.doc.toString()).toEqual("oh, HELLO there world");
    expect(shown(state)).toEqual([
      [16, 21, "selection", `cm-peer-selection peer-${colour}`],
      [21, 21, "caret", "Ann"],
    ]);
    expect(state.doc.sliceString(16, 21)).toEqual("world");
  });

  it("replaces them with each list, cuts positions to the text, and names those without a name", () => {
    let state = EditorState.create({ doc: "abc", extensions: [field] });
    const viewer: PresencePeer = { clientId: "c-v", role: "viewer", updatedAt: ann.updatedAt, cursor: { anchor: 9, head: 9 } };
    const unreadable: PresencePeer = { clientId: "c-u", role: "editor", updatedAt: ann.updatedAt, unreadable: true };
    state = state.update({ effects: setPeers.of([viewer, unreadable]) }).state;
    expect(shown(state)).toEqual([[3, 3, "caret", "Anonymous viewer"]]);
    expect(nameOf(unreadable)).toEqual("Someone (unreadable)");
    state = state.update({ effects: setPeers.of([]) }).state;
    expect(shown(state)).toEqual([]);
    // A client id's colour is one of eight, the same on every page (a hash of the id).
    expect([colourOf("c-ann"), colourOf("c-bob")]).toEqual([7, 3]);
  });
});
