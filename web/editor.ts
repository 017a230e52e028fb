/**
 * CodeMirror 6 bound to the client's LiveDocument. Local edits hand the whole text to doc.setText;
 * a remote change arrives with its character edits against the text the editor shows (TextChange.edits),
 * becomes one transaction of them marked as remote so it is not sent back, and CodeMirror maps the
 * local cursor and selection through it.
 */
import { history, historyKeymap } from "@codemirror/commands";
import { Annotation, Compartment, EditorSelection, EditorState, RangeSetBuilder, Transaction, type Extension } from "@codemirror/state";
import {
  Decoration,
  EditorView,
  ViewPlugin,
  drawSelection,
  highlightActiveLine,
  keymap,
  lineNumbers,
  type DecorationSet,
  type ViewUpdate,
} from "@codemirror/view";
import type { LiveDocument, TextChange } from "../src/client/index.js";
import { parseLine } from "./outline.js";

/** Marks a transaction that brings the document's own text in: it must not go out as a local edit. */
const fromDocument = Annotation.define<boolean>();


/** Enter keeps the indentation of the current line, so that a new node becomes a sibling. */
function newlineKeepingIndent(view: EditorView): boolean {
  if (view.state.readOnly) return false;
  view.dispatch(
    view.state.changeByRange((range) => {
      const line = view.state.doc.lineAt(range.from);
      const indent = /^[ \t]*/.exec(line.text)?.[0] ?? "";
      const insert = `\n${indent.slice(0, Math.max(0, range.from - line.from))}`;
      return { changes: { from: range.from, to: range.to, insert }, range: EditorSelection.cursor(range.from + insert.length) };
    }),
    { scrollIntoView: true, userEvent: "input" },
  );
  return true;
}

/** Indents (or outdents) the selected lines by two spaces: Alt+→ / Alt+← (Tab stays the way out of the editor). */
function shiftLines(view: EditorView, by: 1 | -1): boolean {
  if (view.state.readOnly) return false;
  const changes: { from: number; to?: number; insert?: string }[] = [];
  const seen = new Set<number>();
  for (const range of view.state.selection.ranges) {
    for (let at = view.state.doc.lineAt(range.from).number; at <= view.state.doc.lineAt(range.to).number; at++) {
      if (seen.has(at)) continue;
      seen.add(at);
      const line = view.state.doc.line(at);
      if (by === 1) changes.push({ from: line.from, insert: "  " });
      else {
        const remove = /^ {1,2}|^\t/.exec(line.text)?.[0].length ?? 0;
        if (remove > 0) changes.push({ from: line.from, to: line.from + remove });
      }
    }
  }
  view.dispatch({ changes, userEvent: by === 1 ? "input.indent" : "delete.dedent" });
  return true;
}

const ticketMark = Decoration.mark({ class: "cm-ticket-link" });
const openBox = Decoration.mark({ class: "cm-box" });
const doneBox = Decoration.mark({ class: "cm-box cm-box-done" });
const doneLine = Decoration.line({ class: "cm-node-done" });

function outlineDecorations(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = view.state.doc.lineAt(pos);
      const parsed = parseLine(line.text);
      if (parsed.box?.done) builder.add(line.from, line.from, doneLine);
      const marks = [
        ...(parsed.box ? [{ from: parsed.box.from, to: parsed.box.to, mark: parsed.box.done ? doneBox : openBox }] : []),
        ...(parsed.link ? [{ from: parsed.link.from, to: parsed.link.to, mark: ticketMark }] : []),
      ].sort((a, b) => a.from - b.from);
      for (const mark of marks) builder.add(line.from + mark.from, line.from + mark.to, mark.mark);
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

const outlineHighlighter = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = outlineDecorations(view);
    }
    update(update: ViewUpdate) {
      if (update.docChanged || update.viewportChanged) this.decorations = outlineDecorations(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

export interface BoundEditor {
  view: EditorView;
  setReadOnly(readOnly: boolean): void;
  /**
   * Rewrites one line as a local edit: the first line that `matches`, looking at line `index` (0-based)
   * first, since the line may have moved while a tracker call was under way. False when none matches.
   */
  updateLine(index: number, matches: (text: string) => boolean, edit: (text: string) => string): boolean;
  /** The 0-based index of the line with the main cursor. */
  cursorLine(): number;
  destroy(): void;
}

export function bindEditor(parent: HTMLElement, doc: LiveDocument, options: { onCursorLine: (line: number) => void; label: string; extensions?: Extension[] }): BoundEditor {
  const readOnly = new Compartment();
  let lastLine = -1;
  const extensions: Extension[] = [
    lineNumbers(),
    highlightActiveLine(),
    drawSelection(),
    EditorView.lineWrapping,
    // Undo reverts only the local author's edits: remote ones come in with addToHistory false, and
    // CodeMirror maps the undo steps over them, so an undo reverts one's own change where it now is.
    history(),
    keymap.of([
      { key: "Enter", run: newlineKeepingIndent },
      { key: "Alt-ArrowRight", run: (view) => shiftLines(view, 1) },
      { key: "Alt-ArrowLeft", run: (view) => shiftLines(view, -1) },
      ...historyKeymap,
    ]),
    outlineHighlighter,
    ...(options.extensions ?? []),
    readOnly.of([EditorState.readOnly.of(doc.deleted), EditorView.editable.of(!doc.deleted)]),
    EditorView.contentAttributes.of({ "aria-label": options.label, "aria-multiline": "true", spellcheck: "false", autocapitalize: "off" }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged && !update.transactions.some((tr) => tr.annotation(fromDocument))) doc.setText(update.state.doc.toString());
      if (update.docChanged || update.selectionSet || lastLine === -1) {
        const line = update.state.doc.lineAt(update.state.selection.main.head).number - 1;
        if (line !== lastLine || update.docChanged) {
          lastLine = line;
          options.onCursorLine(line);
        }
      }
    }),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc: doc.text, extensions }) });

  // Any change of the document's text the editor does not show yet (remote edits, a conflict resolved,
  // a restore) comes in here; a local change is the editor's own text already.
  const unsubscribe = doc.on("change", (change: TextChange) => {
    const shown = view.state.doc.toString();
    if (shown === change.text) return;
    // The change's character edits: a cursor in a line that also changed elsewhere stays where it was.
    const changes = shown === change.previousText ? change.edits : [{ from: 0, to: shown.length, insert: change.text }];
    view.dispatch({ changes, annotations: [fromDocument.of(true), Transaction.addToHistory.of(false)] });
    // The ops describe previousText → text; a mismatch would mean the two drifted apart: take the text.
    if (view.state.doc.toString() !== doc.text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: doc.text }, annotations: [fromDocument.of(true), Transaction.addToHistory.of(false)] });
    }
  });

  return {
    view,
    setReadOnly(value) {
      view.dispatch({ effects: readOnly.reconfigure([EditorState.readOnly.of(value), EditorView.editable.of(!value)]) });
    },
    updateLine(index, matches, edit) {
      const count = view.state.doc.lines;
      const order = [index, ...Array.from({ length: count }, (_, k) => k).filter((k) => k !== index)];
      for (const k of order) {
        if (k < 0 || k >= count) continue;
        const line = view.state.doc.line(k + 1);
        if (!matches(line.text)) continue;
        const text = edit(line.text);
        if (text !== line.text) view.dispatch({ changes: { from: line.from, to: line.to, insert: text }, userEvent: "input" });
        return true;
      }
      return false;
    },
    cursorLine: () => view.state.doc.lineAt(view.state.selection.main.head).number - 1,
    destroy() {
      unsubscribe();
      view.destroy();
    },
  };
}
