/** The header of a document's page (edit and read-only): the Folio link to the start page, then the page's own rows. */
import h from "crelt";
import type { Child } from "./replace-children.js";

export function pageHeader(className: string, ...rows: Child[]): HTMLElement {
  return h("header", { class: className }, h("a", { href: "/", class: "brand", "aria-label": "Folio start page" }, "Folio"), ...rows);
}
