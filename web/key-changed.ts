/**
 * What a document page shows once someone else changed the document's key (docs/encryption.md,
 * "Changing the key"): the page has stopped (nothing more is sealed or sent under the old key); it
 * says so, takes the new link pasted in, and keeps the text as the page last showed it for copying,
 * since what was typed here and not yet saved cannot be sent under the old key.
 */
import h from "crelt";
import { showNotice } from "./notice-page.js";
import { keyOf, routeOf } from "./routes.js";

/** The new link's address when `pasted` is a link with a key to document `id`, else what is wrong with it. */
export function newLinkOf(pasted: string, id: string, origin: string): { href: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(pasted.trim(), origin);
  } catch {
    return { problem: "That is not a link." };
  }
  const route = routeOf(url);
  if (route.page !== "document" || route.id !== id) return { problem: "That is a link to another page: paste the new link of this document." };
  if (keyOf(url) === undefined) return { problem: "That link has no key (#key=…): paste the whole new link." };
  return { href: `${url.pathname}${url.hash}` };
}

export function showKeyChanged(root: HTMLElement, id: string, shownText: string): void {
  const field = h("input", { id: "new-link", type: "url", required: true, autocomplete: "off", "aria-describedby": "new-link-problem" });
  const problem = h("p", { id: "new-link-problem", class: "warning", role: "alert" });
  const form = h("form", { class: "new-link" }, h("label", { for: "new-link" }, "The new link"), field, h("button", { type: "submit" }, "Open"), problem);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const link = newLinkOf(field.value, id, window.location.origin);
    if ("problem" in link) {
      problem.textContent = link.problem;
      return;
    }
    // Only the fragment may differ: the page is loaded again on the new key.
    window.location.replace(link.href);
    window.location.reload();
  });
  const kept = h(
    "details",
    { class: "last-text" },
    h("summary", {}, "The text as this page last showed it"),
    h("p", { class: "muted" }, "What was typed here and not saved yet could not be sent under the old key: copy what you need."),
    h("textarea", { readonly: true, rows: "10", "aria-label": "The text as this page last showed it" }, shownText),
  );
  showNotice(root, {
    heading: "The document's key was changed",
    text: "Someone changed this document's key: the key in this page's link no longer opens it, so the page stopped and sent nothing more. Paste the new link (whoever changed the key has it) to go on.",
    attributes: { class: "home key-needed", "data-key-problem": "changed" },
    more: [form, kept],
  });
  field.focus();
}
