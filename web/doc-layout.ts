/**
 * The body of a document's page (edit and read-only): the main column, its toolbar first (the panel
 * toggles of panels.ts, then the page's own actions), and the side panels; with every panel closed
 * the editor takes the whole width.
 */
import h from "crelt";
import { panelToggles, type PanelSpec } from "./panels.js";
import type { Child } from "./replace-children.js";

export interface DocLayoutParts {
  /** The panels, in the order of their toolbar buttons. */
  panels: PanelSpec[];
  /** The toolbar's label for assistive technology, and the buttons after the panel toggles. */
  toolbar: { label: string; actions: Child[] };
  /** What follows the toolbar in the main column. */
  main: Child[];
  /** The panels' elements, in the order they stack in the side column. */
  side: Child[];
}

export function docLayout(parts: DocLayoutParts): HTMLElement {
  const layout = h("div", { class: "doc-layout" });
  const toggles = panelToggles(parts.panels, (open) => layout.classList.toggle("no-panels", open === 0));
  return h(
    layout,
    h("main", { class: "doc-main" }, h("div", { class: "toolbar", role: "group", "aria-label": parts.toolbar.label }, ...toggles, ...parts.toolbar.actions), ...parts.main),
    h("aside", { class: "side", "aria-label": "Panels" }, ...parts.side),
  );
}
