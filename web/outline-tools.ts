/**
 * The outliner's tools, each its own CodeMirror extension (docs/editor.md): find and replace,
 * folding by indentation (kept per browser), check boxes that toggle, moving a node with its
 * children, indentation guides, and the outline bar (the box count, Fold all / Unfold all, the touch
 * buttons). The editor adds them in one line; the read-only view takes the ones that change nothing.
 */
import type { Extension } from "@codemirror/state";
import { checkBoxes } from "./check-boxes.js";
import { indentGuides } from "./indent-guides.js";
import { moveNodes } from "./move-node.js";
import { outlineBarPanel } from "./outline-bar.js";
import { outlineFolding } from "./outline-folding.js";
import { outlineSearch } from "./outline-search.js";

/** Every tool, for the edit page; `documentKey` names the document whose folds this browser keeps. */
export function outlineTools(documentKey: string): Extension {
  return [outlineSearch(), outlineFolding(documentKey), checkBoxes(), moveNodes(), indentGuides(), outlineBarPanel({ editable: true })];
}

/** The tools that only read, for the read-only page. */
export function readingTools(documentKey: string): Extension {
  return [outlineSearch(), outlineFolding(documentKey), indentGuides(), outlineBarPanel({ editable: false })];
}
