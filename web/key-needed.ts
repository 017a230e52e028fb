/**
 * What a page shows when an encrypted document cannot be shown (docs/encryption.md): its link has no
 * key, or a key that does not open it, or the key was changed while the page was open. Never any of
 * the document's ciphertext: only what to do.
 */
import { showNotice } from "./notice-page.js";

export type KeyProblem = "missing" | "wrong";

const TEXTS: Record<KeyProblem, [string, string]> = {
  missing: [
    "This document is encrypted: the link's key is needed",
    "Its text and title are encrypted in this browser with a key that is part of the full link, after #key=. The service does not have the key. Open the document with the whole link you were given.",
  ],
  wrong: [
    "The key in this link does not open this document",
    "The document is encrypted, and the key after #key= in this link is not its key: the link may be cut short, or the document's key was changed since. Ask whoever shared it for the current link.",
  ],
};

export function showKeyProblem(root: HTMLElement, problem: KeyProblem, readOnly = false): void {
  const [heading, text] = TEXTS[problem];
  document.title = `${readOnly ? "Read-only link" : "Encrypted document"} · Folio`;
  showNotice(root, { heading, text, attributes: { class: "home key-needed", "data-key-problem": problem } });
}
