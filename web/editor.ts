/**
 * CodeMirror 6 on a LiveDocument: the outline's look and keys (editor-keys.ts), and the binding that
 * hands every local transaction's changes to the document and brings remote ones in (live-sync.ts).
 */
import { history } from "@codemirror/commands";
import { Compartment, EditorState, RangeSetBuilder, type Extension } from "@codemirror/state";
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
import type { LiveDocument } from "../src/client/index.js";
import { charChanges } from "../src/core/index.js";
import { outlineKeymap } from "./editor-keys.js";
import { liveSync } from "./live-sync.js";
import { parseLine } from "./outline.js";
import { pasteKeepsIndent } from "./paste-indent.js";
import { outlineTools } from "./outline-tools.js";

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

/** Checkboxes, done nodes and ticket links marked in the text (also used by the read-only view). */
export const outlineHighlighter = ViewPlugin.fromClass(
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
    liveSync(doc),
    keymap.of(outlineKeymap),
    pasteKeepsIndent,
    outlineHighlighter,
    outlineTools(doc.id),
    ...(options.extensions ?? []),
    readOnly.of([EditorState.readOnly.of(doc.deleted), EditorView.editable.of(!doc.deleted)]),
    EditorView.contentAttributes.of({ "aria-label": options.label, "aria-multiline": "true", spellcheck: "false", autocapitalize: "off" }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged || update.selectionSet || lastLine === -1) {
        const line = update.state.doc.lineAt(update.state.selection.main.head).number - 1;
        if (line !== lastLine || update.docChanged) {
          lastLine = line;
          options.onCursorLine(line);
        }
      }
    }),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc: doc.doc, extensions }) });

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
        if (text !== line.text) view.dispatch({ changes: charChanges(line.text, text, line.from), userEvent: "input" });
        return true;
      }
      return false;
    },
    cursorLine: () => view.state.doc.lineAt(view.state.selection.main.head).number - 1,
    destroy() {
      view.destroy();
    },
  };
}
