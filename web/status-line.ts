/**
 * A status line: a polite live region whose words say what just happened (the page's message line
 * under the toolbar, each panel's status line), at times with a button (Undo, Reload).
 */
import h from "crelt";
import { replace, type Child } from "./replace-children.js";

export interface StatusLine {
  element: HTMLElement;
  /** Says `text` (an empty text clears the line). */
  say: (text: string) => void;
  /** Shows words and elements, a button say. */
  show: (...children: Child[]) => void;
}

export function statusLine(className: string): StatusLine {
  const element = h("p", { class: className, role: "status", "aria-live": "polite" });
  return {
    element,
    say: (text) => void (element.textContent = text),
    show: (...children) => replace(element, ...children),
  };
}

/** The page's message line: cut to one line on screen, the whole text stays in its title (and is read out). */
export function pageMessage(): StatusLine {
  const line = statusLine("page-message");
  const { element } = line;
  new MutationObserver(() => (element.title = element.textContent ?? "")).observe(element, { childList: true, characterData: true, subtree: true });
  return line;
}
