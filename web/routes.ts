/**
 * Which page a path asks for: the start page `/`, a document's edit page `/d/<uuid>`, a read-only
 * page `/r/<readId>`, or none. The links themselves are built in links.ts. Pure: no DOM.
 */

const UUID = "([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})";
const DOCUMENT_PATH = new RegExp(`^/d/${UUID}/?$`);
const READ_ONLY_PATH = new RegExp(`^/r/${UUID}/?$`);

export type Route = { page: "home" } | { page: "document"; id: string } | { page: "read-only"; readId: string } | { page: "not-found" };

/**
 * The key of an encrypted document's link, from the fragment `#key=<key>` (docs/encryption.md);
 * `undefined` when there is none. Only read here: never sent, logged or stored.
 */
export function keyOf(location: { hash: string }): string | undefined {
  const key = new URLSearchParams(location.hash.replace(/^#/, "")).get("key");
  return key === null || key === "" ? undefined : key;
}

/** The page a location's path asks for; ids lower-cased (the service's own spelling). */
export function routeOf(location: { pathname: string }): Route {
  const path = location.pathname;
  if (path === "/") return { page: "home" };
  const document = DOCUMENT_PATH.exec(path)?.[1];
  if (document) return { page: "document", id: document.toLowerCase() };
  const read = READ_ONLY_PATH.exec(path)?.[1];
  if (read) return { page: "read-only", readId: read.toLowerCase() };
  return { page: "not-found" };
}
