/**
 * What a page shows when an encrypted document cannot be shown (docs/encryption.md): its link has no
 * key, or a key that does not open it, or the key was changed while the page was open; or its link
 * has a key but the document is not encrypted (a plain document is never opened through a link that
 * promises encryption: whatever is typed would reach the service in plain text). Never any of the
 * document's ciphertext: only what to do.
 */
import h from "crelt";
import { showNotice } from "./notice-page.js";

export type KeyProblem = "missing" | "wrong" | "not-encrypted";

const TEXTS: Record<KeyProblem, [string, string]> = {
  missing: [
    "This document is encrypted: the link's key is needed",
    "Its text and title are encrypted in this browser with a key that is part of the full link, after #key=. The service does not have the key. Open the document with the whole link you were given.",
  ],
  wrong: [
    "The key in this link does not open this document",
    "The document is encrypted, and the key after #key= in this link is not its key: the link may be cut short, or the document's key was changed since. Ask whoever shared it for the current link.",
  ],
  "not-encrypted": [
    "This link has a key, but the document is not encrypted",
    "A link ending with #key= is the link of an encrypted document, but this document is stored in plain text: what is typed or shown here would not be encrypted. Someone who can change the document may have replaced it, or the link was made for another document. Open it as a plain document only if you expect one.",
  ],
};

/** `plainLink`: with "not-encrypted", the page's own path without the key, to open it as a plain document on purpose. */
export function showKeyProblem(root: HTMLElement, problem: KeyProblem, readOnly = false, plainLink?: string): void {
  const [heading, text] = TEXTS[problem];
  document.title = `${readOnly ? "Read-only link" : "Encrypted document"} · Folio`;
  const more = plainLink !== undefined ? [h("p", {}, h("a", { href: plainLink, class: "open-plain" }, "Open it as a plain document"))] : [];
  showNotice(root, { heading, text, attributes: { class: "home key-needed", "data-key-problem": problem }, more });
}
