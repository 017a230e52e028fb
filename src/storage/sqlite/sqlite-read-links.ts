import type { Database } from "better-sqlite3";
import type { ReadLinkStore } from "../read-links.js";
import { durableRead, run } from "./sqlite-reads.js";
import { flushFailed, type WalSync } from "./wal-sync.js";

function prepareStatements(db: Database) {
  return {
    byDocument: db.prepare<[string], { read_id: string }>("SELECT read_id FROM read_links WHERE document_id = ?"),
    byReadId: db.prepare<[string], { document_id: string }>("SELECT document_id FROM read_links WHERE read_id = ?"),
    // The document's check and the write are one statement: a delete cannot slip in between.
    replace: db.prepare<[{ documentId: string; readId: string; createdAt: number }]>(
      `INSERT INTO read_links (document_id, read_id, created_at)
       SELECT id, @readId, @createdAt FROM documents WHERE id = @documentId AND deleted = 0
       ON CONFLICT (document_id) DO UPDATE SET read_id = excluded.read_id, created_at = excluded.created_at`,
    ),
    remove: db.prepare<[string]>("DELETE FROM read_links WHERE document_id = ?"),
  };
}

/**
 * The read links on SQLite: single statements outside the document queues and the group commit (a
 * link is no version), flushed like a commit before they resolve, read like every read (after the
 * flush of what they saw). Ids are lower-cased here, since SQLite compares text exactly and
 * PostgreSQL's `uuid` does not care.
 */
export class SqliteReadLinks implements ReadLinkStore {
  private readonly sql: ReturnType<typeof prepareStatements>;

  constructor(
    db: Database,
    private readonly wal: WalSync | undefined,
  ) {
    this.sql = prepareStatements(db);
  }

  readIdOf(documentId: string): Promise<string | undefined> {
    return durableRead(() => this.sql.byDocument.get(documentId.toLowerCase())?.read_id, this.flushing);
  }

  documentOf(readId: string): Promise<string | undefined> {
    return durableRead(() => this.sql.byReadId.get(readId.toLowerCase())?.document_id, this.flushing);
  }

  async replace(documentId: string, readId: string, createdAt: number): Promise<boolean> {
    this.refuseAfterFailedFlush();
    const changes = await run(() => this.sql.replace.run({ documentId: documentId.toLowerCase(), readId: readId.toLowerCase(), createdAt }).changes);
    if (changes > 0) await this.flush();
    return changes > 0;
  }

  async remove(documentId: string): Promise<boolean> {
    this.refuseAfterFailedFlush();
    const changes = await run(() => this.sql.remove.run(documentId.toLowerCase()).changes);
    if (changes > 0) await this.flush();
    return changes > 0;
  }

  private readonly flushing = (): Promise<void> | undefined => this.wal?.pending();

  // After a failed flush the store acknowledges nothing more (wal-sync.ts), read links included.
  private refuseAfterFailedFlush(): void {
    if (this.wal?.failed) throw flushFailed(this.wal.failed);
  }

  private async flush(): Promise<void> {
    try {
      await this.wal?.sync();
    } catch (error) {
      throw flushFailed(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
