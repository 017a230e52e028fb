/**
 * The links the Share panel hands out, built here and nowhere else: a document's edit page `/d/<id>`
 * and its read-only page `/r/<readId>` on this page's origin. Each link is the whole access it grants
 * (docs/sharing.md); an encrypted document's links carry its key in the fragment, `#key=<key>`, which
 * a browser never sends to a server (docs/encryption.md). Which page a path is: routes.ts.
 */

/** `#key=<key>` for an encrypted document, nothing for a plain one. */
function fragment(key: string | undefined): string {
  return key === undefined ? "" : `#key=${key}`;
}

/** The edit link of a document: whoever has it can read, change, rename, delete and restore it. */
export function editLink(documentId: string, key?: string): string {
  return `${window.location.origin}/d/${documentId}${fragment(key)}`;
}

/** The read-only link of a document: whoever has it can read and follow it, and read its history. */
export function readOnlyLink(readId: string, key?: string): string {
  return `${window.location.origin}/r/${readId}${fragment(key)}`;
}
