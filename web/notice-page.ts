/**
 * A page that shows no document, only why (the link needs a key, the document cannot be opened, a
 * read-only link does not work): a heading, its words, what can be done, and the way to the start page.
 */
import h from "crelt";
import { replace, type Child } from "./replace-children.js";

export interface Notice {
  heading: string;
  text: string;
  /** The page's `<main>` attributes beyond its class (`home`). */
  attributes?: Record<string, string>;
  /** What follows the words (a button to try again, restore…). */
  more?: Child[];
}

export function showNotice(root: HTMLElement, { heading, text, attributes = { class: "home" }, more = [] }: Notice): void {
  replace(root, h("main", attributes, h("h1", {}, heading), h("p", {}, text), ...more, h("p", {}, h("a", { href: "/" }, "Go to the start page"))));
}
