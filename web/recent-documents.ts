/**
 * The start page's "Recently opened": the documents this browser opened (prefs.ts), each with Forget;
 * an encrypted one only when its key is remembered on this device, its link then carrying the key.
 */
import h from "crelt";
import { forgetDocument, recentDocuments } from "./prefs.js";
import { replace } from "./replace-children.js";

export function recentDocumentsList(): HTMLUListElement {
  const list = h("ul", { class: "recent-list" });
  const render = () => {
    const recent = recentDocuments();
    if (recent.length === 0) {
      replace(
        list,
        h("li", { class: "muted" }, "No documents opened in this browser yet. Open a shared link, or create one. Encrypted documents are listed only when remembered on this device."),
      );
      return;
    }
    replace(
      list,
      ...recent.map((entry) =>
        h(
          "li",
          {},
          h("a", { href: `/d/${entry.id}${entry.key !== undefined ? `#key=${entry.key}` : ""}` }, entry.title || "(untitled)"),
          entry.key !== undefined ? h("span", { class: "encrypted-mark" }, "Encrypted") : undefined,
          h("time", { datetime: entry.openedAt, class: "muted" }, new Date(entry.openedAt).toLocaleString()),
          h("button", { type: "button", class: "link-button", "aria-label": `Forget ${entry.title}`, onclick: () => (forgetDocument(entry.id), render()) }, "Forget"),
        ),
      ),
    );
  };
  render();
  return list;
}
