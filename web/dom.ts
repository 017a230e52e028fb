/** A small element builder: the page has no framework, and this keeps its views short and readable. */
type Attributes = Record<string, string | boolean | number | undefined | ((event: Event) => void)>;
type Child = Node | string | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** Replaces every child of `parent`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

/** A readable message for any error a call can raise (FolioError carries the problem's detail). */
export function messageOf(error: unknown): string {
  if (error && typeof error === "object") {
    const problem = (error as { problem?: { detail?: string } }).problem;
    if (problem?.detail) return problem.detail;
    if (error instanceof Error) return error.message;
  }
  return String(error);
}
