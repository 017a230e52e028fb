/**
 * The links the Share panel hands out, built here and nowhere else: a document's edit page `/d/<id>`
 * and its read-only page `/r/<readId>` on this page's origin. Each link is the whole access it grants
 * (docs/sharing.md). Which page a path is: routes.ts.
 */

/** The edit link of a document: whoever has it can read, change, rename, delete and restore it. */
export function editLink(documentId: string): string {
  return `${window.location.origin}/d/${documentId}`;
}

/** The read-only link of a document: whoever has it can read and follow it, and read its history. */
export function readOnlyLink(readId: string): string {
  return `${window.location.origin}/r/${readId}`;
}
