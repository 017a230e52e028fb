import pg from "pg";
import {
  type CommitListener,
  type CompactionResult,
  type DocumentRecord,
  type DocumentReads,
  type DocumentTransaction,
  type ListFailureState,
  type ListLockState,
  type ReadAhead,
  type InstanceRelay,
  type Store,
  StorageUnavailableError,
  type StoreStats,
} from "../store.js";
import { POSTGRES_SCHEMA_NAME } from "../storage-url.js";
import { CommitNotifier, commitPayload, RELAY_CHANNEL } from "./commit-notifier.js";
import { migrate } from "./postgres-migrations.js";
import { PostgresReadLinks } from "./postgres-read-links.js";
import { DOCUMENT_COLUMNS, createTypeParsers, documentFromRow, type DocumentRow } from "./postgres-rows.js";
import { PostgresReads } from "./postgres-reads.js";
import { inTransaction } from "./postgres-transaction.js";
import { PostgresWrites } from "./postgres-writes.js";
import { COMPACTION_CLEARS, compactableVersion, documentsNeedingSnapshot } from "../compaction-rule.js";

export interface PostgresStoreOptions {
  /** The schema holding the tables, created when missing; default: the connection's search_path. */
  schema?: string;
  /** Pooled connections, besides the one LISTEN connection; default 10. */
  poolSize?: number;
  /** Connection trouble that the store recovers from by itself (a lost LISTEN connection, a broken idle client). */
  onError?: (error: Error) => void;
}

// Every wait is bounded: for a pooled connection, for a statement, for a row lock, and for a
// transaction left idle by a stuck caller.
const CONNECT_TIMEOUT_MS = 10_000;
const STATEMENT_TIMEOUT_MS = 30_000;
const LOCK_TIMEOUT_MS = 15_000;
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
const IDLE_CLIENT_MS = 30_000;
// A first compaction of a long history may touch many rows; it runs in the background.
const COMPACTION_TIMEOUT_MS = 300_000;

// Advisory-lock class (first key) of compaction; the second key is a hash of the schema, so that
// stores in different schemas of one database never wait for each other (a new document's lock is
// in postgres-writes.ts).
export const COMPACTION_LOCK_CLASS = 0x466f0002;

const LIST_LOCK_COLUMNS = "failures, locked_until AS \"lockedUntil\"";

// SQLSTATE classes and codes that say the database cannot serve now, not that the request is wrong:
// connection exceptions (08), insufficient resources (53), a lock or statement that outlasted its
// bound (55P03, 57014), an administrator or crash shutdown (57P01–57P03). Socket errors and the
// pool's own time-outs say the same.
const UNAVAILABLE_SQLSTATE = /^(08|53|55P03|57014|57P0[123])/;
// Of those, the ones that say the connection or the database is gone: all but the two time-outs.
const LOST_SQLSTATE = /^(08|53|57P0[123])/;
const UNAVAILABLE_SOCKET = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EPIPE|EAI_AGAIN)$/;
const UNAVAILABLE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/;

/**
 * Whether an error says the connection or the database is gone (not a lock or statement that
 * outlasted its bound, which one document's trouble can cause): a shared transaction that failed so
 * is not retried (postgres-writes.ts).
 */
function connectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return UNAVAILABLE_SOCKET.test(code) || LOST_SQLSTATE.test(code);
  return UNAVAILABLE_MESSAGE.test(error.message);
}

function unavailable(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof StorageUnavailableError) return error;
  const code = (error as { code?: unknown }).code;
  const byCode = typeof code === "string" && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.test(code));
  if (!byCode && !UNAVAILABLE_MESSAGE.test(error.message)) return error;
  return new StorageUnavailableError(`the PostgreSQL database cannot serve now (${typeof code === "string" ? code : error.message})`, { cause: error });
}

/** The {@link Store} on PostgreSQL, shared safely by any number of service instances. */
export class PostgresStore implements Store {
  private readonly inFlight = new Set<Promise<unknown>>();
  private closing: Promise<void> | undefined;
  readonly readLinks: PostgresReadLinks;
  private readonly writes: PostgresWrites;
  /** NOTIFY on the relay channel through the pool; LISTEN on the notifier's connection. */
  readonly relay: InstanceRelay = {
    send: (message) => {
      void this.track(() => this.pool.query("SELECT pg_notify($1, $2)", [RELAY_CHANNEL, this.notifier.relayPayload(message)])).catch(() => undefined);
    },
    watch: (listener) => this.notifier.watchRelay(listener),
  };

  private constructor(
    private readonly pool: pg.Pool,
    private readonly notifier: CommitNotifier,
    poolSize: number,
  ) {
    this.readLinks = new PostgresReadLinks(pool, (operation) => this.track(operation));
    this.writes = new PostgresWrites({
      pool,
      // Two (measured: docs/benchmarks-history.md, the fourth session of 2026-11-25), leaving a
      // pooled connection to the reads whenever there are two or more.
      transactions: Math.max(1, Math.min(2, poolSize - 1)),
      notice: (documentId, headVersion) => commitPayload(documentId, headVersion, notifier.origin),
      lost: connectionLost,
    });
  }

  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const { schema, poolSize = 10, onError = () => {} } = options;
    if (schema !== undefined && !POSTGRES_SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name: ${JSON.stringify(schema)}`);
    if (!Number.isSafeInteger(poolSize) || poolSize < 1) throw new Error(`invalid pool size: ${poolSize}`);
    const connection: pg.ClientConfig = {
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      lock_timeout: LOCK_TIMEOUT_MS,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
      keepAlive: true,
      application_name: "folio",
      ...(schema !== undefined && { options: `-c search_path=${schema}` }),
    };
    // Pipelined: a statement sent behind another does not wait for its answer (inTransaction's `opening`).
    const pool = new pg.Pool({ ...connection, max: poolSize, idleTimeoutMillis: IDLE_CLIENT_MS, types: createTypeParsers(), pipeline: true });
    // An idle client that breaks is dropped by the pool; without a listener the event would crash the process.
    pool.on("error", onError);
    const notifier = new CommitNotifier(connection, onError, {}, schema ?? "");
    try {
      await migrate(pool, schema);
      await notifier.start();
    } catch (error) {
      await notifier.close();
      await pool.end();
      throw error;
    }
    return new PostgresStore(pool, notifier, poolSize);
  }

  reads(id: string): DocumentReads {
    return new PostgresReads(this.pool, id, (read) => this.track(read));
  }

  listDocuments(): Promise<DocumentRecord[]> {
    return this.track(async () => {
      const { rows } = await this.pool.query<DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE NOT deleted ORDER BY created_at, id`);
      return rows.map(documentFromRow);
    });
  }

  write<T>(id: string, work: (tx: DocumentTransaction) => Promise<T>, ahead?: ReadAhead): Promise<T> {
    // PostgresWrites refuses an id that is no UUID (documents are keyed by uuid).
    return this.track(() => this.writes.write(id, work, ahead));
  }

  documentsNeedingSnapshot(cutoff: number): Promise<string[]> {
    return this.track(async () => {
      const { rows } = await this.pool.query<{ id: string }>(documentsNeedingSnapshot("$1"), [cutoff]);
      return rows.map((row) => row.id);
    });
  }

  compact(cutoff: number): Promise<CompactionResult> {
    return this.track(() =>
      inTransaction(this.pool, async (client) => {
        // Transaction-scoped, so a crashed compaction can never leave the lock held.
        const { rows } = await client.query<{ acquired: boolean }>(
          "SELECT pg_try_advisory_xact_lock($1, hashtext(current_schema())) AS acquired",
          [COMPACTION_LOCK_CLASS],
        );
        if (!rows[0]!.acquired) return { ran: false, versions: 0, receipts: 0 };
        await client.query(`SET LOCAL statement_timeout = ${COMPACTION_TIMEOUT_MS}`);
        // The versions first, while every receipt that refers to some of them still keeps them: one
        // that expires now keeps them until the next run (see SqliteStore.compact).
        const versions = await client.query(
          `UPDATE versions v SET ${COMPACTION_CLEARS} FROM documents d, snapshots s
            WHERE d.id = v.document_id AND s.document_id = v.document_id AND ${compactableVersion("$1")}`,
          [cutoff],
        );
        const receipts = await client.query("DELETE FROM patch_receipts WHERE created_at < $1", [cutoff]);
        return { ran: true, versions: versions.rowCount ?? 0, receipts: receipts.rowCount ?? 0 };
      }),
    );
  }

  getListLock(): Promise<ListLockState> {
    return this.track(async () => {
      const { rows } = await this.pool.query<ListLockState>(`SELECT ${LIST_LOCK_COLUMNS} FROM list_lock WHERE id = 1`);
      return rows[0]!;
    });
  }

  recordListFailure(now: number, maxFailures: number, lockMs: number): Promise<ListFailureState> {
    // One statement: the row lock serializes instances, and every SET expression reads the row as
    // it was before this update (re-read after a concurrent update committed). RETURNING sees only
    // the new row, so whether it was locked before comes from the row locked in the FROM clause.
    return this.track(async () => {
      const { rows } = await this.pool.query<ListFailureState>(
        `UPDATE list_lock SET
           failures = CASE WHEN list_lock.locked_until > $1 THEN list_lock.failures
                           WHEN list_lock.failures + 1 >= $2 THEN 0 ELSE list_lock.failures + 1 END,
           locked_until = CASE WHEN list_lock.locked_until > $1 THEN list_lock.locked_until
                               WHEN list_lock.failures + 1 >= $2 THEN $1 + $3 ELSE list_lock.locked_until END
         FROM (SELECT locked_until AS was FROM list_lock WHERE id = 1 FOR UPDATE) AS before
         WHERE list_lock.id = 1
         RETURNING list_lock.failures, list_lock.locked_until AS "lockedUntil", before.was <= $1 AS counted`,
        [now, maxFailures, lockMs],
      );
      return rows[0]!;
    });
  }

  resetListFailures(releasing = -1): Promise<void> {
    return this.track(async () => {
      await this.pool.query("UPDATE list_lock SET failures = 0, locked_until = CASE WHEN locked_until = $1 THEN 0 ELSE locked_until END WHERE id = 1", [releasing]);
    });
  }

  /** Commits made by the other stores on the database (other instances); this store's own are not reported back. */
  watchCommits(listener: CommitListener): () => void {
    return this.notifier.subscribe(listener);
  }

  async ping(): Promise<void> {
    await this.track(async () => {
      await this.pool.query("SELECT 1");
    });
    // Without the LISTEN connection, waiting feed requests would miss other instances' commits.
    if (!this.notifier.connected) throw new StorageUnavailableError("the PostgreSQL LISTEN connection is down; reconnecting");
  }

  stats(): StoreStats {
    return { kind: "postgres", listener: { connected: this.notifier.connected, reconnects: this.notifier.reconnects } };
  }

  /** The backend pid of the LISTEN connection while it is up (tests terminate it to exercise reconnects). */
  listenerPid(): number | undefined {
    return this.notifier.pid();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.inFlight]);
      await this.notifier.close();
      await this.pool.end();
    })();
    return this.closing;
  }

  private async track<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closing) throw new Error("the PostgreSQL store is closed");
    const running = operation();
    this.inFlight.add(running);
    try {
      return await running;
    } catch (error) {
      throw unavailable(error);
    } finally {
      this.inFlight.delete(running);
    }
  }
}
