import type { ReadLinkStore } from "../read-links.js";
import { isUuid, type Queryable } from "./postgres-reads.js";

/**
 * The read links on PostgreSQL: one statement each, on the pool, never inside a document's write
 * transaction (a link is no version, so it takes no document lock). Every instance reads the table,
 * so a link replaced or removed through one instance stops answering on all of them at once.
 */
export class PostgresReadLinks implements ReadLinkStore {
  constructor(
    private readonly db: Queryable,
    /** The store's bookkeeping of operations in flight and its mapping of connection trouble. */
    private readonly run: <T>(operation: () => Promise<T>) => Promise<T>,
  ) {}

  readIdOf(documentId: string): Promise<string | undefined> {
    return this.one("SELECT read_id AS id FROM read_links WHERE document_id = $1", documentId);
  }

  documentOf(readId: string): Promise<string | undefined> {
    return this.one("SELECT document_id AS id FROM read_links WHERE read_id = $1", readId);
  }

  replace(documentId: string, readId: string, createdAt: number): Promise<boolean> {
    // The document's check and the write are one statement. Under READ COMMITTED a concurrent
    // replace of the same document waits on the key and then updates the row it committed: the
    // last one wins, and one link remains.
    return this.changes(
      `INSERT INTO read_links (document_id, read_id, created_at)
       SELECT id, $2, $3 FROM documents WHERE id = $1 AND NOT deleted
       ON CONFLICT (document_id) DO UPDATE SET read_id = EXCLUDED.read_id, created_at = EXCLUDED.created_at`,
      [documentId, readId, createdAt],
      [documentId, readId],
    );
  }

  remove(documentId: string): Promise<boolean> {
    return this.changes("DELETE FROM read_links WHERE document_id = $1", [documentId], [documentId]);
  }

  private one(sql: string, id: string): Promise<string | undefined> {
    return this.run(async () => {
      // A string that is not a UUID would fail the cast; it names no link.
      if (!isUuid(id)) return undefined;
      const { rows } = await this.db.query<{ id: string }>(sql, [id]);
      return rows[0]?.id;
    });
  }

  private changes(sql: string, values: unknown[], ids: string[]): Promise<boolean> {
    return this.run(async () => {
      if (!ids.every(isUuid)) return false;
      const { rowCount } = await this.db.query(sql, values);
      return (rowCount ?? 0) > 0;
    });
  }
}
