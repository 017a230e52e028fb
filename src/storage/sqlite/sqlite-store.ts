import type { Database } from "better-sqlite3";
import {
  type CommitListener,
  type CompactionResult,
  type DocumentReads,
  type DocumentTransaction,
  type ListFailureState,
  type ListLockState,
  type Store,
  type StoreStats,
  StorageUnavailableError,
} from "../store.js";
import { StagedWrites, documentTransaction } from "../staged-writes.js";
import { openDatabase } from "./sqlite-open.js";
import { preparePrivateFiles } from "./private-files.js";
import { SqliteFileLock, lockFileName } from "./file-lock.js";
import { toDocument } from "./sqlite-rows.js";
import { GroupCommit } from "./group-commit.js";
import { COMPACTION_CHUNK, prepareStatements, type Statements } from "./sqlite-statements.js";
import { SqliteReads, durableRead, run, unavailable } from "./sqlite-reads.js";
import { stagedStatements } from "./sqlite-transaction.js";
import { WalSync, flushFailed } from "./wal-sync.js";
import { SqliteReadLinks } from "./sqlite-read-links.js";

/**
 * The embedded store: one SQLite file in WAL mode whose WAL is flushed to disk before a commit is
 * acknowledged (off the event loop, wal-sync.ts), so an acknowledged change survives a power cut.
 * Writers of one document are serialized in-process (only this process opens the file); writers
 * that finish together share one durable commit.
 */
export class SqliteStore implements Store {
  private readonly sql: Statements;
  private readonly groupCommit: GroupCommit;
  private readonly documentQueues = new Map<string, Promise<unknown>>();
  private closed = false;
  readonly readLinks: SqliteReadLinks;

  private constructor(
    private readonly db: Database,
    private readonly lock: SqliteFileLock | undefined,
    private readonly wal: WalSync | undefined,
  ) {
    this.sql = prepareStatements(db);
    this.groupCommit = new GroupCommit(db, wal);
    this.readLinks = new SqliteReadLinks(db, wal);
  }

  /**
   * Opens (creating and migrating) the database at `path`, or an in-memory one for `:memory:`.
   * `busyTimeoutMs` bounds the wait for a lock another process holds on the file (a backup, a
   * maintenance query). A file another store serves is refused with {@link StorageInUseError}.
   */
  static open(path: string, options: { busyTimeoutMs?: number } = {}): SqliteStore {
    if (path !== ":memory:") preparePrivateFiles([path, lockFileName(path)]);
    const lock = path === ":memory:" ? undefined : SqliteFileLock.acquire(path);
    try {
      const { db, walFile } = openDatabase(path, options);
      return new SqliteStore(db, lock, walFile === undefined ? undefined : new WalSync(walFile));
    } catch (error) {
      lock?.release();
      throw error;
    }
  }


  reads(id: string): DocumentReads {
    return new SqliteReads(this.sql, id, this.flushing);
  }

  /** The flush of the WAL under way, if any (what a read outside a write settles after). */
  private readonly flushing = (): Promise<void> | undefined => this.wal?.pending();

  listDocuments = () => durableRead(() => this.sql.documents.all().map(toDocument), this.flushing);

  write<T>(id: string, work: (tx: DocumentTransaction) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the store is closed"));
    if (this.wal?.failed) return Promise.reject(flushFailed(this.wal.failed));
    const previous = this.documentQueues.get(id) ?? Promise.resolve();
    const run = previous.then(async () => {
      const staged = new StagedWrites(id);
      let result: T;
      try {
        result = await work(documentTransaction(new SqliteReads(this.sql, id), staged));
      } finally {
        staged.seal();
      }
      const statements = stagedStatements(this.sql, staged);
      if (statements.length > 0) {
        try {
          await this.groupCommit.commit(statements);
        } catch (error) {
          throw unavailable(error);
        }
      }
      return result;
    });
    const settled = run.catch(() => undefined);
    this.documentQueues.set(id, settled);
    void settled.then(() => {
      if (this.documentQueues.get(id) === settled) this.documentQueues.delete(id);
    });
    return run;
  }

  documentsNeedingSnapshot = (cutoff: number) => run(() => this.sql.needingSnapshot.all(cutoff).map((row) => row.id));

  async compact(cutoff: number): Promise<CompactionResult> {
    // The versions first, while every receipt that refers to some of them still keeps them: one that
    // expires now keeps them until the next run, so a repeat that read it just before cannot find them gone.
    let versions = 0;
    for (;;) {
      const changed = await run(() => this.sql.compactVersions.run(cutoff).changes);
      versions += changed;
      if (changed < COMPACTION_CHUNK) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A receipt and its receipt_ops row go together, so that none is left pointing at ops that are gone.
    const receipts = await run(() =>
      this.db.transaction(() => {
        this.sql.compactReceiptOps.run(cutoff);
        return this.sql.compactReceipts.run(cutoff).changes;
      })(),
    );
    return { versions, receipts, ran: true };
  }

  getListLock(): Promise<ListLockState> {
    return durableRead(() => {
      const row = this.sql.listLock.get();
      return { failures: row?.failures ?? 0, lockedUntil: row?.locked_until ?? 0 };
    }, this.flushing);
  }

  async recordListFailure(now: number, maxFailures: number, lockMs: number): Promise<ListFailureState> {
    const row = await run(() => this.sql.recordFailure.get({ now, max: maxFailures, lockMs }));
    // Flushed like a commit (wal-sync.ts): a lock must not be lost to a power cut.
    await this.wal?.sync();
    // No row: the list was locked, and the statement changed nothing.
    return row ? { failures: row.failures, lockedUntil: row.locked_until, counted: true } : { ...(await this.getListLock()), counted: false };
  }

  async resetListFailures(releasing = -1): Promise<void> {
    await run(() => void this.sql.resetFailures.run(releasing));
    await this.wal?.sync();
  }

  // A read of a row of the file (not a constant): a file gone unreadable or locked beyond the wait fails it.
  async ping(): Promise<void> {
    if (this.closed) throw new StorageUnavailableError("the SQLite store is closed");
    if (this.wal?.failed) throw flushFailed(this.wal.failed);
    await run(() => this.sql.listLock.get());
  }

  stats(): StoreStats {
    return { kind: "sqlite" };
  }

  // Only this process writes the file: the service wakes its own waiters after each commit.
  watchCommits(_listener: CommitListener): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.documentQueues.values()]);
    await this.groupCommit.drain();
    await this.wal?.close();
    try {
      this.db.close();
    } finally {
      // Only after the database is closed may another process take the file over.
      this.lock?.release();
    }
  }

  /** For tests and diagnostics: the prepared statement cache is per connection. */
  get database(): Database {
    return this.db;
  }
}

