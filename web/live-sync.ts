/**
 * The editor's binding to a live document, or to a read-only one (docs/editor.md, "How the page
 * talks to the service"): a CodeMirror view plugin that subscribes to the document when the view is
 * made and unsubscribes when it is destroyed. Every transaction of the person's (typing, a paste, an
 * undo, a command) goes to the document as its changes, at once; every change from the service comes
 * back as one transaction marked remote, kept out of the person's undo history (CodeMirror maps the
 * undo steps over it), with the cursor put where the merge rule puts the person's next key. Nothing
 * here copies, diffs or stores the whole text.
 */
import { Annotation, EditorSelection, Transaction, type ChangeSet, type Text } from "@codemirror/state";
import { ViewPlugin, type EditorView, type ViewUpdate } from "@codemirror/view";
import type { TextChange } from "../src/client/index.js";

/** Marks a transaction that brings a change of the service's in: it must not go back out. */
export const remoteChange = Annotation.define<boolean>();

/** What the binding follows: a live document (with `edit`) or a read-only one. */
export interface Followed {
  /** The document's text now: the view starts from it, and is put back on it should they ever part. */
  readonly doc: Text;
  on(event: "change", listener: (change: TextChange) => void): () => void;
  edit?(changes: ChangeSet): void;
}

/**
 * The selection through a remote change: each cursor goes where the merge rule puts the person's
 * next key (docs/editing-protocol.md, "The merge rule"; `mapCursor`): text put in right at it goes
 * after it when their own text is before it, else before it. CodeMirror's own mapping would always
 * keep the cursor before such text, so that the next key would land in front of someone else's word
 * that reached the service first. A range keeps CodeMirror's mapping.
 */
export function selectionThrough(selection: EditorSelection, change: Pick<TextChange, "changes" | "mapCursor">): EditorSelection {
  const ranges = selection.ranges.map((range) => (range.empty ? EditorSelection.cursor(change.mapCursor(range.head)) : range.map(change.changes)));
  return EditorSelection.create(ranges, selection.mainIndex);
}

export function liveSync(source: Followed) {
  return ViewPlugin.fromClass(
    class {
      private readonly unsubscribe: () => void;

      constructor(private readonly view: EditorView) {
        this.unsubscribe = source.on("change", (change) => this.receive(change));
      }

      update(update: ViewUpdate): void {
        if (!update.docChanged || !source.edit) return;
        for (const transaction of update.transactions) {
          if (transaction.docChanged && !transaction.annotation(remoteChange)) source.edit(transaction.changes);
        }
      }

      destroy(): void {
        this.unsubscribe();
      }

      private receive(change: TextChange): void {
        const annotations = [remoteChange.of(true), Transaction.addToHistory.of(false)];
        // Every local edit reached the document the moment it was made, so the change fits the view;
        // should they ever part, the view takes the document's text as it is.
        const fits = change.changes.length === this.view.state.doc.length;
        if (!fits) return this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: source.doc }, annotations });
        this.view.dispatch({ changes: change.changes, selection: selectionThrough(this.view.state.selection, change), annotations });
      }
    },
  );
}
