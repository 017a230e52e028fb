import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Database } from "better-sqlite3";
import {
  type CommitListener,
  type CompactionResult,
  type DocumentRecord,
  type DocumentTransaction,
  type ListLockState,
  type PatchReceipt,
  type ReceiptKey,
  type Snapshot,
  type Store,
  type StoreStats,
  type VersionRecord,
  type VersionSummary,
  StorageUnavailableError,
} from "../store.js";
import { openDatabase } from "./sqlite-open.js";
import { SqliteFileLock } from "./file-lock.js";
import {
  encodeFullText,
  toDocument,
  toReceipt,
  toSnapshot,
  toVersion,
  toVersionSummary,
  type DocumentRow,
  type ReceiptRow,
  type SnapshotRow,
  type VersionRow,
  type VersionSummaryRow,
} from "./sqlite-rows.js";
import { GroupCommit } from "./group-commit.js";

function prepareStatements(db: Database) {
  return {
    document: db.prepare<[string], DocumentRow>("SELECT * FROM documents WHERE id = ?"),
    documents: db.prepare<[], DocumentRow>("SELECT * FROM documents WHERE deleted = 0 ORDER BY created_at, id"),
    version: db.prepare<[string, number], VersionRow>("SELECT * FROM versions WHERE document_id = ? AND version = ?"),
    versions: db.prepare<[string, number, number], VersionSummaryRow>(
      `SELECT document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum
       FROM versions WHERE document_id = ? AND version > ? AND version <= ? ORDER BY version`,
    ),
    milestones: db.prepare<[string], VersionRow>("SELECT * FROM versions WHERE document_id = ? AND milestone = 1 ORDER BY version"),
    snapshot: db.prepare<[string], SnapshotRow>("SELECT version, text FROM snapshots WHERE document_id = ?"),
    milestoneTextAtOrBefore: db.prepare<[string, number], SnapshotRow>(
      "SELECT version, text FROM versions WHERE document_id = ? AND milestone = 1 AND version <= ? AND text IS NOT NULL ORDER BY version DESC LIMIT 1",
    ),
    receipt: db.prepare<[string, string, number], ReceiptRow>(
      "SELECT * FROM patch_receipts WHERE document_id = ? AND client_id = ? AND seq = ?",
    ),
    putDocument: db.prepare(
      `INSERT INTO documents (id, title, version, deleted, created_at, updated_at, checksum)
       VALUES (@id, @title, @version, @deleted, @createdAt, @updatedAt, @checksum)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, version = excluded.version, deleted = excluded.deleted,
         updated_at = excluded.updated_at, checksum = excluded.checksum`,
    ),
    // The version is appended only as the next one: a number is never reused or skipped.
    appendVersion: db.prepare(
      `INSERT INTO versions (document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum, text)
       SELECT @documentId, @version, @changeType, @milestone, @createdAt, @clientId, @displayName, @title, @ops, @checksum, @text
       WHERE (SELECT coalesce(max(version), 0) FROM versions WHERE document_id = @documentId) = @version - 1`,
    ),
    markMilestone: db.prepare("UPDATE versions SET milestone = 1, text = ? WHERE document_id = ? AND version = ?"),
    putSnapshot: db.prepare(
      `INSERT INTO snapshots (document_id, version, text) VALUES (?, ?, ?)
       ON CONFLICT (document_id) DO UPDATE SET version = excluded.version, text = excluded.text`,
    ),
    putReceipt: db.prepare(
      `INSERT INTO patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    needingSnapshot: db.prepare<[number], { id: string }>(
      `SELECT DISTINCT d.id FROM documents d
       JOIN versions v ON v.document_id = d.id
       LEFT JOIN snapshots s ON s.document_id = d.id
       WHERE v.milestone = 0 AND v.ops IS NOT NULL AND v.created_at < ? AND v.version < d.version
         AND v.version >= coalesce(s.version, 0)
       ORDER BY d.id`,
    ),
    // One chunk at a time: better-sqlite3 runs on the event loop, so a single statement over a
    // million versions would stall every request for seconds.
    compactVersions: db.prepare(
      `UPDATE versions SET ops = NULL, text = NULL
       WHERE (document_id, version) IN (
         SELECT v.document_id, v.version FROM versions v
         JOIN documents d ON d.id = v.document_id
         JOIN snapshots s ON s.document_id = v.document_id
         WHERE v.milestone = 0 AND v.ops IS NOT NULL AND v.created_at < ? AND v.version < d.version AND v.version < s.version
         LIMIT ${COMPACTION_CHUNK})`,
    ),
    compactReceipts: db.prepare("DELETE FROM patch_receipts WHERE created_at < ?"),
    listLock: db.prepare<[], { failures: number; locked_until: number }>("SELECT failures, locked_until FROM list_lock WHERE id = 1"),
    recordFailure: db.prepare<[{ now: number; max: number; lockMs: number }], { failures: number; locked_until: number }>(
      `UPDATE list_lock SET
         failures = CASE WHEN failures + 1 >= @max THEN 0 ELSE failures + 1 END,
         locked_until = CASE WHEN failures + 1 >= @max THEN @now + @lockMs ELSE locked_until END
       WHERE id = 1 AND locked_until <= @now
       RETURNING failures, locked_until`,
    ),
    resetFailures: db.prepare("UPDATE list_lock SET failures = 0 WHERE id = 1"),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

class SqliteTransaction implements DocumentTransaction {
  readonly staged: (() => void)[] = [];

  constructor(
    private readonly sql: Statements,
    private readonly id: string,
  ) {}

  document = async (): Promise<DocumentRecord | undefined> => readDocument(this.sql, this.id);
  snapshot = async (): Promise<Snapshot | undefined> => readSnapshot(this.sql, this.id);
  versions = async (after: number, upTo: number): Promise<VersionSummary[]> => this.sql.versions.all(this.id, after, upTo).map(toVersionSummary);
  version = async (version: number): Promise<VersionRecord | undefined> => readVersion(this.sql, this.id, version);
  fullTextAtOrBefore = async (version: number): Promise<Snapshot | undefined> => readFullText(this.sql, this.id, version);
  receipt = async (clientId: string, seq: number): Promise<PatchReceipt | undefined> => readReceipt(this.sql, this.id, clientId, seq);
  // One indexed lookup per key: a SQLite statement is a function call, not a round trip.
  receipts = async (keys: readonly ReceiptKey[]): Promise<PatchReceipt[]> =>
    keys.flatMap(({ clientId, seq }) => readReceipt(this.sql, this.id, clientId, seq) ?? []);

  putDocument(document: DocumentRecord): void {
    const row = { ...document, deleted: document.deleted ? 1 : 0 };
    this.staged.push(() => this.sql.putDocument.run(row));
  }

  appendVersion(version: VersionRecord): void {
    const row = {
      ...version,
      milestone: version.milestone ? 1 : 0,
      clientId: version.clientId ?? null,
      displayName: version.displayName ?? null,
      ops: version.ops === null ? null : JSON.stringify(version.ops),
      text: version.text === null ? null : encodeFullText(version.text),
    };
    this.staged.push(() => {
      if (this.sql.appendVersion.run(row).changes !== 1) {
        throw new Error(`version ${version.version} of document ${version.documentId} is not the next version`);
      }
    });
  }

  markMilestone(version: number, text: string): void {
    this.staged.push(() => {
      if (this.sql.markMilestone.run(encodeFullText(text), this.id, version).changes !== 1) {
        throw new Error(`markMilestone(${version}) on document ${this.id}: no such version`);
      }
    });
  }

  putSnapshot(snapshot: Snapshot): void {
    this.staged.push(() => this.sql.putSnapshot.run(this.id, snapshot.version, encodeFullText(snapshot.text)));
  }

  putReceipt(receipt: PatchReceipt): void {
    this.staged.push(() =>
      this.sql.putReceipt.run(
        receipt.documentId,
        receipt.clientId,
        receipt.seq,
        receipt.requestHash,
        receipt.version,
        JSON.stringify(receipt.opsSinceBase),
        receipt.createdAt,
      ),
    );
  }
}

function readDocument(sql: Statements, id: string): DocumentRecord | undefined {
  const row = sql.document.get(id);
  return row && toDocument(row);
}

function readVersion(sql: Statements, id: string, version: number): VersionRecord | undefined {
  const row = sql.version.get(id, version);
  return row && toVersion(row);
}

function readReceipt(sql: Statements, id: string, clientId: string, seq: number): PatchReceipt | undefined {
  const row = sql.receipt.get(id, clientId, seq);
  return row && toReceipt(row);
}

function readFullText(sql: Statements, id: string, version: number): Snapshot | undefined {
  const milestone = sql.milestoneTextAtOrBefore.get(id, version);
  const snapshot = sql.snapshot.get(id);
  const usableSnapshot = snapshot && snapshot.version <= version ? snapshot : undefined;
  const newest = milestone && usableSnapshot ? (milestone.version >= usableSnapshot.version ? milestone : usableSnapshot) : (milestone ?? usableSnapshot);
  return newest && toSnapshot(newest);
}

function readSnapshot(sql: Statements, id: string): Snapshot | undefined {
  const row = sql.snapshot.get(id);
  return row && toSnapshot(row);
}


/** Versions whose ops one compaction statement drops; the event loop runs between statements. */
const COMPACTION_CHUNK = 2000;

// Result codes that say the file cannot serve now (another process's lock outlasted the wait, the
// disk is full or failing), not that the request or the code is wrong.
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/;

function unavailable(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNAVAILABLE.test(code)) {
    return new StorageUnavailableError(`the SQLite database cannot serve now (${code})`, { cause: error });
  }
  return error;
}

/**
 * The embedded store: one SQLite file in WAL mode with `synchronous=FULL`, so an acknowledged
 * change survives a power cut. Writers of one document are serialized in-process (only this
 * process opens the file); writers that finish together share one durable commit.
 */
export class SqliteStore implements Store {
  private readonly sql: Statements;
  private readonly groupCommit: GroupCommit;
  private readonly documentQueues = new Map<string, Promise<unknown>>();
  private closed = false;

  private constructor(
    private readonly db: Database,
    private readonly lock: SqliteFileLock | undefined,
  ) {
    this.sql = prepareStatements(db);
    this.groupCommit = new GroupCommit(db);
  }

  /**
   * Opens (creating and migrating) the database at `path`, or an in-memory one for `:memory:`.
   * `busyTimeoutMs` bounds the wait for a lock another process holds on the file (a backup, a
   * maintenance query). A file another store serves is refused with {@link StorageInUseError}.
   */
  static open(path: string, options: { busyTimeoutMs?: number } = {}): SqliteStore {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const lock = path === ":memory:" ? undefined : SqliteFileLock.acquire(path);
    try {
      return new SqliteStore(openDatabase(path, options), lock);
    } catch (error) {
      lock?.release();
      throw error;
    }
  }


  getDocument = (id: string) => this.run(() => readDocument(this.sql, id));
  listDocuments = () => this.run(() => this.sql.documents.all().map(toDocument));
  getVersion = (id: string, version: number) => this.run(() => readVersion(this.sql, id, version));
  getVersions = (id: string, after: number, upTo: number) => this.run(() => this.sql.versions.all(id, after, upTo).map(toVersionSummary));
  getMilestones = (id: string) => this.run(() => this.sql.milestones.all(id).map(toVersion));
  getSnapshot = (id: string) => this.run(() => readSnapshot(this.sql, id));
  getFullTextAtOrBefore = (id: string, version: number) => this.run(() => readFullText(this.sql, id, version));
  getReceipt = (id: string, clientId: string, seq: number) => this.run(() => readReceipt(this.sql, id, clientId, seq));

  /** Runs a synchronous statement, reporting the file's unavailability as such. */
  private async run<T>(statement: () => T): Promise<T> {
    try {
      return statement();
    } catch (error) {
      throw unavailable(error);
    }
  }

  write<T>(id: string, work: (tx: DocumentTransaction) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the store is closed"));
    const previous = this.documentQueues.get(id) ?? Promise.resolve();
    const run = previous.then(async () => {
      const tx = new SqliteTransaction(this.sql, id);
      const result = await work(tx);
      if (tx.staged.length > 0) {
        try {
          await this.groupCommit.commit(tx.staged);
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

  documentsNeedingSnapshot = (cutoff: number) => this.run(() => this.sql.needingSnapshot.all(cutoff).map((row) => row.id));

  async compact(cutoff: number): Promise<CompactionResult> {
    let versions = 0;
    for (;;) {
      const changed = await this.run(() => this.sql.compactVersions.run(cutoff).changes);
      versions += changed;
      if (changed < COMPACTION_CHUNK) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const receipts = await this.run(() => this.sql.compactReceipts.run(cutoff).changes);
    return { versions, receipts, ran: true };
  }

  getListLock(): Promise<ListLockState> {
    return this.run(() => {
      const row = this.sql.listLock.get();
      return { failures: row?.failures ?? 0, lockedUntil: row?.locked_until ?? 0 };
    });
  }

  async recordListFailure(now: number, maxFailures: number, lockMs: number): Promise<ListLockState> {
    const row = await this.run(() => this.sql.recordFailure.get({ now, max: maxFailures, lockMs }));
    return row ? { failures: row.failures, lockedUntil: row.locked_until } : this.getListLock();
  }

  resetListFailures(): Promise<void> {
    return this.run(() => void this.sql.resetFailures.run());
  }

  // A read of a row of the file (not a constant): a file gone unreadable or locked beyond the wait fails it.
  async ping(): Promise<void> {
    if (this.closed) throw new StorageUnavailableError("the SQLite store is closed");
    await this.run(() => this.sql.listLock.get());
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

