/**
 * The read-only links of documents (docs/sharing.md): at most one per document, found by its own
 * id (the read id) through a unique index. A read link is metadata beside the document, not part of
 * its history: making, replacing or removing one records no version and wakes no feed.
 *
 * Ids are lower-case UUIDs; a string that is not a UUID names nothing (a read returns `undefined`).
 * Every write is one statement, durable before its promise resolves, and visible at once to every
 * instance sharing the database: nothing here is cached, so a removed or replaced link stops
 * answering everywhere as soon as the write resolves.
 */
export interface ReadLinkStore {
  /** The read id of the document's link, or `undefined` when it has none (or the document never existed). */
  readIdOf(documentId: string): Promise<string | undefined>;
  /**
   * The id of the document whose link is `readId`, or `undefined` when no link has that id (never
   * made, removed, or replaced by a newer one). A deleted document's link is still found: the
   * caller decides what a deleted document shows.
   */
  documentOf(readId: string): Promise<string | undefined>;
  /**
   * Gives the document the link `readId`, replacing its earlier one (which stops being found) in
   * the same statement, but only while the document exists and is not deleted; otherwise writes
   * nothing and returns `false`. Concurrent calls for one document leave exactly one of their links.
   * `readId` is a fresh random UUID (the caller makes it).
   */
  replace(documentId: string, readId: string, createdAt: number): Promise<boolean>;
  /** Removes the document's link, deleted documents included; `false` when it had none. */
  remove(documentId: string): Promise<boolean>;
}
