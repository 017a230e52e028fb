/**
 * The page's addresses, in one place: which page a path is (the start page, a document's edit page
 * `/d/<uuid>`, a read-only page `/r/<readId>`), and the links the Share panel hands out. Both links are
 * the whole access they grant (docs/sharing.md), so they are built here and nowhere else.
 */

const UUID = "([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})";
const DOCUMENT_PATH = new RegExp(`^/d/${UUID}/?$`);
const READ_ONLY_PATH = new RegExp(`^/r/${UUID}/?$`);

export type Route = { page: "home" } | { page: "document"; id: string } | { page: "read-only"; readId: string } | { page: "not-found" };

/** The page a location's path asks for; ids lower-cased (the service's own spelling). */
export function routeOf(location: Pick<Location, "pathname">): Route {
  const path = location.pathname;
  if (path === "/") return { page: "home" };
  const document = DOCUMENT_PATH.exec(path)?.[1];
  if (document) return { page: "document", id: document.toLowerCase() };
  const read = READ_ONLY_PATH.exec(path)?.[1];
  if (read) return { page: "read-only", readId: read.toLowerCase() };
  return { page: "not-found" };
}

/** The edit link of a document: whoever has it can read, change, rename, delete and restore it. */
export function editLink(documentId: string): string {
  return `${window.location.origin}/d/${documentId}`;
}

/** The read-only link of a document: whoever has it can read and follow it, and read its history. */
export function readOnlyLink(readId: string): string {
  return `${window.location.origin}/r/${readId}`;
}
