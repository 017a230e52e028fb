import { ChangeSet, EditorSelection, Text } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { mapCursor } from "../../src/core/concurrent-changes.js";
import { selectionThrough } from "../../web/live-sync.js";

// The page's cursor through a remote change (web/live-sync.ts) goes where the merge rule puts the
// person's next key (docs/editing-protocol.md, "The merge rule"), as the client library's mapCursor says.

/** A remote change of `doc` putting `insert` in at `at`, with the library's mapCursor for a person whose own text is `own` ([from, to)). */
function remote(doc: string, at: number, insert: string, own?: [number, number]) {
  const text = Text.of(doc.split("\n"));
  const changes = ChangeSet.of([{ from: at, insert }], text.length);
  const ownBefore = (pos: number) => own !== undefined && pos - 1 >= own[0] && pos - 1 < own[1];
  return { changes, mapCursor: (pos: number) => mapCursor(text, changes, pos, ownBefore) };
}

describe("the cursor through a remote change", () => {
  it("goes after someone else's text put in right at it, where the text before it is not the person's own", () => {
    // Bob's cursor at the end of "Announce on"; Ann's " Mon" reached the service first.
    const change = remote("Announce on", 11, " Mon");
    expect(selectionThrough(EditorSelection.single(11), change).main.head).toEqual(15);
    // CodeMirror's own mapping would keep it before Ann's word.
    expect(EditorSelection.single(11).map(change.changes).main.head).toEqual(11);
  });

  it("stays after the person's own text, before someone else's put in right at it", () => {
    // Ann typed " Mon" (her own); Bob's " Tue" comes in at her cursor.
    const change = remote("Announce on Mon", 15, " Tue", [11, 15]);
    expect(selectionThrough(EditorSelection.single(15), change).main.head).toEqual(15);
  });

  it("keeps a selected range as CodeMirror maps it, and every cursor of several", () => {
    const change = remote("one two three", 4, "big ");
    // A range (here selected backwards) moves as CodeMirror moves it; a cursor of several goes after the text too.
    const selection = EditorSelection.create([EditorSelection.range(0, 3), EditorSelection.cursor(4), EditorSelection.range(13, 8)], 2);
    const through = selectionThrough(selection, change);
    expect(through.ranges.map((range) => [range.anchor, range.head])).toEqual([[0, 3], [8, 8], [17, 12]]);
    expect(through.mainIndex).toEqual(2);
  });
});
