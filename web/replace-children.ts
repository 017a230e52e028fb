/**
 * Replaces every child of an element. The page builds its elements with crelt (CodeMirror's own
 * dependency): a string value is set as an attribute, any other value is assigned as a property, so
 * numbers are written as strings (`tabindex: "-1"`, `maxlength: "255"`) and `onclick` is a handler;
 * an undefined child is left out.
 */
import h from "crelt";

export type Child = Node | string | undefined;

export function replace(parent: HTMLElement, ...children: Child[]): void {
  parent.replaceChildren();
  h(parent, ...children);
}
