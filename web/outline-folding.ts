/**
 * Folding by indentation (docs/editor.md#folding): a node with children folds them away behind a
 * marker that says how many of their check boxes are done; the gutter's arrows, Ctrl+Shift+[ and
 * Ctrl+Shift+] (Cmd+Alt+[ / ] on macOS), Ctrl+Alt+[ / ] for all, and the outline bar's buttons. The
 * folded nodes are kept in this browser (localStorage, by line number; no text) and folded again
 * when the document opens. Folding is a view of the page only: it never changes the text.
 */
import { codeFolding, foldEffect, foldedRanges, foldGutter, foldKeymap, foldService, foldable, unfoldEffect } from "@codemirror/language";
import type { Extension } from "@codemirror/state";
import type { EditorView} from "@codemirror/view";
import { keymap, ViewPlugin, type ViewUpdate } from "@codemirror/view";
import { boxCountText, countBoxes } from "./box-count.js";
import { nodeFoldRange } from "./fold-ranges.js";

function placeholder(view: EditorView, onclick: (event: Event) => void, prepared: string): HTMLElement {
  const element = document.createElement("span");
  element.className = "cm-foldPlaceholder";
  element.textContent = prepared;
  element.title = "Folded: click to unfold";
  element.setAttribute("aria-label", `folded: ${prepared}`);
  element.onclick = onclick;
  return element;
}

const storageKeyOf = (documentKey: string) => `folio.folds.${documentKey}`;

function savedLines(key: string): number[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(key) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((value): value is number => Number.isInteger(value) && value > 0).slice(0, 10_000) : [];
  } catch {
    return [];
  }
}

/** Keeps the folded lines in localStorage and folds them again when the editor opens. */
function keptFolds(documentKey: string): Extension {
  const key = storageKeyOf(documentKey);
  return ViewPlugin.fromClass(
    class {
      constructor(view: EditorView) {
        // A plugin may not dispatch while the view is being built: the folds come right after.
        queueMicrotask(() => {
          const effects = savedLines(key)
            .filter((number) => number <= view.state.doc.lines)
            .map((number) => foldable(view.state, view.state.doc.line(number).from, view.state.doc.line(number).to))
            .filter((range) => range !== null)
            .map((range) => foldEffect.of(range));
          if (effects.length > 0) view.dispatch({ effects });
        });
      }
      update(update: ViewUpdate) {
        const folding = update.transactions.some((tr) => tr.effects.some((effect) => effect.is(foldEffect) || effect.is(unfoldEffect)));
        if (!folding && !update.docChanged) return;
        const lines: number[] = [];
        foldedRanges(update.state).between(0, update.state.doc.length, (from) => void lines.push(update.state.doc.lineAt(from).number));
        try {
          if (lines.length === 0) window.localStorage.removeItem(key);
          else window.localStorage.setItem(key, JSON.stringify(lines));
        } catch {
          // Storage refused: the folds last for this visit.
        }
      }
    },
  );
}

/** Folding of the outline; `documentKey` names the document whose folds this browser keeps. */
export function outlineFolding(documentKey?: string): Extension {
  return [
    foldService.of(nodeFoldRange),
    codeFolding({
      preparePlaceholder: (state, range) => {
        const count = countBoxes(state.doc, state.doc.lineAt(range.from).number + 1, state.doc.lineAt(range.to).number);
        const lines = state.doc.lineAt(range.to).number - state.doc.lineAt(range.from).number;
        return `… ${lines} ${lines === 1 ? "line" : "lines"}${count.total > 0 ? `, ${boxCountText(count)}` : ""}`;
      },
      placeholderDOM: placeholder,
    }),
    foldGutter({ openText: "▾", closedText: "▸" }),
    keymap.of(foldKeymap),
    documentKey !== undefined ? keptFolds(documentKey) : [],
  ];
}
