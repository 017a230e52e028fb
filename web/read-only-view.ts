/**
 * The read-only page's CodeMirror view of a document followed through its read-only link: the same
 * look as the editor (line numbers, outline marks), no edit possible (read-only state, content not
 * editable), and the keyboard still moves a cursor and selects (the content takes the focus), so that
 * the text can be read line by line and copied. Changes from the feed come in through the editor's own
 * binding (live-sync.ts), so the reader's cursor and selection stay with the text.
 */
import { defaultKeymap } from "@codemirror/commands";
import { EditorState, type Extension } from "@codemirror/state";
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import type { ReadOnlyLiveDocument } from "../src/client/index.js";
import { outlineHighlighter } from "./editor.js";
import { liveSync } from "./live-sync.js";
import { readingTools } from "./outline-tools.js";

export interface ReadOnlyView {
  view: EditorView;
  destroy(): void;
}

export function readOnlyView(parent: HTMLElement, doc: ReadOnlyLiveDocument, label: string, extensions: Extension[] = []): ReadOnlyView {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: doc.doc,
      extensions: [
        liveSync(doc),
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
  return {
    view,
    destroy() {
      view.destroy();
    },
  };
}
