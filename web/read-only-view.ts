/**
 * The read-only page's CodeMirror view of a document followed through its read-only link: the same
 * look as the editor (line numbers, outline marks), no edit possible (read-only state, content not
 * editable), and the keyboard still moves a cursor and selects (the content takes the focus), so that
 * the text can be read line by line and copied. A change from the feed comes in as the character
 * edits between the two texts, so the reader's cursor and selection stay where they were.
 */
import { defaultKeymap } from "@codemirror/commands";
import { EditorState, Transaction, type Extension } from "@codemirror/state";
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import type { ReadOnlyChange, ReadOnlyLiveDocument } from "../src/client/index.js";
import { diffLines, splitLines, toLineOperation } from "../src/core/index.js";
import { outlineHighlighter } from "./editor.js";
import { toMinimalChanges } from "./line-changes.js";
import { readingTools } from "./outline-tools.js";

export interface ReadOnlyView {
  view: EditorView;
  destroy(): void;
}

export function readOnlyView(parent: HTMLElement, doc: ReadOnlyLiveDocument, label: string, extensions: Extension[] = []): ReadOnlyView {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: doc.text,
      extensions: [
        lineNumbers(),
        highlightActiveLine(),
        drawSelection(),
        EditorView.lineWrapping,
        outlineHighlighter,
        readingTools(`read.${doc.readId}`),
        ...extensions,
        // Moving and selecting only: no key of this keymap changes a read-only state's text. Enter is
        // taken first, or the browser's own handling of it would move the cursor to the top.
        keymap.of([{ key: "Enter", run: () => true }, ...defaultKeymap]),
        EditorState.readOnly.of(true),
        EditorView.editable.of(false),
        EditorView.contentAttributes.of({ tabindex: "0", role: "textbox", "aria-label": label, "aria-readonly": "true", "aria-multiline": "true" }),
      ],
    }),
  });
  const unsubscribe = doc.on("change", (change: ReadOnlyChange) => {
    const shown = view.state.doc.toString();
    if (shown === change.text) return;
    const ops = shown === change.previousText ? change.ops : diffLines(splitLines(shown), splitLines(change.text)).map(toLineOperation);
    view.dispatch({ changes: toMinimalChanges(shown, ops), annotations: Transaction.addToHistory.of(false) });
    if (view.state.doc.toString() !== change.text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: change.text }, annotations: Transaction.addToHistory.of(false) });
    }
  });
  return {
    view,
    destroy() {
      unsubscribe();
      view.destroy();
    },
  };
}
