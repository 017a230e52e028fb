/**
 * Indentation guides (docs/editor.md#the-outline-on-screen): a thin vertical line at each level of a
 * node's indentation, drawn as the line's background (a line decoration setting `--guides`, the
 * number of levels), so the guides follow wrapped lines and cost no DOM of their own. A level is two
 * columns, the notation's indentation unit; only the lines on screen are decorated.
 */
import { RangeSetBuilder, type Extension } from "@codemirror/state";
import { Decoration, ViewPlugin, type DecorationSet, type EditorView, type ViewUpdate } from "@codemirror/view";
import { indentWidth } from "../src/core/outline-notation.js";

const byLevels = new Map<number, Decoration>();

function guidesOf(levels: number): Decoration {
  let decoration = byLevels.get(levels);
  if (!decoration) {
    decoration = Decoration.line({ class: "cm-indent-guides", attributes: { style: `--guides: ${levels}` } });
    byLevels.set(levels, decoration);
  }
  return decoration;
}

function guides(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = view.state.doc.lineAt(pos);
      const rest = line.text.trimStart();
      const levels = rest === "" ? 0 : Math.min(40, Math.floor(indentWidth(line.text.slice(0, line.text.length - rest.length)) / 2));
      if (levels > 0) builder.add(line.from, line.from, guidesOf(levels));
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

export function indentGuides(): Extension {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = guides(view);
      }
      update(update: ViewUpdate) {
        if (update.docChanged || update.viewportChanged) this.decorations = guides(update.view);
      }
    },
    { decorations: (plugin) => plugin.decorations },
  );
}
