import type pg from "pg";
import type { DocumentRecord, DocumentTransaction, ReadAhead } from "../store.js";
import { StagedWrites, documentTransaction } from "../staged-writes.js";
import { DOCUMENT_COLUMNS, documentFromRow, type DocumentRow, type ReceiptRow } from "./postgres-rows.js";
import { PostgresReads, ReceiptsReadAhead, isUuid, readReceipts } from "./postgres-reads.js";
import { flushStaged, inTransaction, type Flush } from "./postgres-transaction.js";

/** One call of Store.write waiting for its transaction; its id is a checked UUID. */
interface Writer {
  id: string;
  /** Set when a shared transaction handed the writer back: it runs in a transaction of its own. */
  solo?: boolean;
  work: (tx: DocumentTransaction) => Promise<unknown>;
  ahead: ReadAhead | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface PostgresWritesOptions {
  pool: pg.Pool;
  /** Write transactions under way at once, of the pool's connections: the others serve reads. */
  transactions: number;
  /** The commit notice of a document's new head, sent with the commit (commit-notifier.ts). */
  notice: (documentId: string, headVersion: number) => string;
  /** Whether an error says the connection or the database is gone (then a failed shared transaction is not retried). */
  lost: (error: unknown) => boolean;
}

// Documents per shared transaction: enough to share one commit among the writers that queue while
// one is under way, few enough that one lock statement and one flush stay small.
const MAX_SHARED = 64;

/** Locks a document's row and reads it. */
const LOCK = `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = $1 FOR UPDATE`;
/**
 * Locks the rows of `$1` (distinct ids) that no other transaction holds, skipping the others: a
 * shared transaction never waits for a row lock, so one busy document cannot hold up the rest, and
 * two instances cannot deadlock on their rows.
 */
const LOCK_FREE = `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE SKIP LOCKED`;

// Advisory-lock class (first key) of a document being created; the second key is a hash of its id.
const CREATION_LOCK_CLASS = 0x466f0003;

/**
 * The write transactions of the PostgreSQL store (docs/architecture.md, "Group commit"). Writers
 * of different documents that queue while the database is busy share one transaction: one statement
 * locks their rows, one reads their receipts, their works run on that transaction, and one statement
 * writes what they staged before the COMMIT. A lone writer gets a transaction of its own, and so
 * does a writer the shared transaction hands back: a document with no row yet, or whose row another transaction
 * holds. When a shared transaction fails for a reason other than a lost connection (one document's
 * flush refused, a read that failed, a deadlock with some other client), each of its writers is
 * handed back too, so that one document's failure costs no other document its write.
 */
export class PostgresWrites {
  private pending: Writer[] = [];
  /** Ids in a transaction under way (lower case): another writer of one waits for the next. */
  private readonly busy = new Set<string>();
  private running = 0;
  private scheduled = false;

  constructor(private readonly options: PostgresWritesOptions) {}

  write<T>(id: string, work: (tx: DocumentTransaction) => Promise<T>, ahead?: ReadAhead): Promise<T> {
    // Documents are keyed by uuid: another string could be neither locked nor created.
    if (!isUuid(id)) return Promise.reject(new Error(`document id is not a UUID: ${JSON.stringify(id)}`));
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ id: id.toLowerCase(), work, ahead, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.options.transactions || this.pending.length === 0) return;
    this.scheduled = true;
    // After the current turn of the event loop, so that writers finishing together share a transaction.
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    while (this.running < this.options.transactions) {
      const batch = this.take();
      if (batch.length === 0) return;
      this.running += 1;
      for (const writer of batch) this.busy.add(writer.id);
      const [only] = batch;
      const done =
        batch.length === 1 && only
          ? this.alone(only)
          : this.shared(batch).then(
              (handedBack) => {
                // First in line again, in their order: no later writer of their documents overtakes them.
                for (const writer of handedBack) writer.solo = true;
                this.pending = [...handedBack, ...this.pending];
              },
              // Not expected (shared settles its writers itself); a writer must never be left waiting.
              (error: unknown) => batch.forEach((writer) => writer.reject(error)),
            );
      void done.finally(() => {
        this.running -= 1;
        for (const writer of batch) this.busy.delete(writer.id);
        this.schedule();
      });
    }
  }

  /**
   * The next batch, in the order the writers came: up to {@link MAX_SHARED} of distinct documents
   * not in a transaction under way, or a writer handed back (solo) alone. A writer left waiting holds
   * back the later writers of its document.
   */
  private take(): Writer[] {
    const batch: Writer[] = [];
    const held = new Set<string>();
    const left: Writer[] = [];
    let closed = false;
    for (const writer of this.pending) {
      const free = !closed && !this.busy.has(writer.id) && !held.has(writer.id);
      if (free && writer.solo && batch.length === 0) closed = true;
      if (free && (!writer.solo || closed)) {
        batch.push(writer);
        if (batch.length === MAX_SHARED) closed = true;
      } else {
        left.push(writer);
      }
      held.add(writer.id);
    }
    this.pending = left;
    return batch;
  }

  /** Runs one writer in a transaction of its own, settling it. */
  private async alone(writer: Writer): Promise<void> {
    try {
      writer.resolve(await this.writeAlone(writer));
    } catch (error) {
      writer.reject(error);
    }
  }

  private writeAlone(writer: Writer): Promise<unknown> {
    const { id, work } = writer;
    // The lock and the receipts' read go right behind the BEGIN, in one round trip.
    const opening = (client: pg.PoolClient) => Promise.all([client.query<DocumentRow>(LOCK, [id]), readAhead(client, [writer])]);
    return inTransaction(this.options.pool, async (client, [locked, readFirst]) => {
      const row = locked.rows[0];
      const head = row ? documentFromRow(row) : await lockNewDocument(client, id);
      // Read before the advisory lock of a new id was granted, the receipts may be stale: read again then.
      const receipts = row ? readFirst : await readAhead(client, [writer]);
      const { result, staged } = await runWork(client, id, head, receipts.get(writer), work);
      // The notice is delivered by PostgreSQL only when the transaction commits, and in commit order.
      await flushStaged(client, [{ staged, announce: (headVersion) => this.options.notice(id, headVersion) }]);
      return result;
    }, opening);
  }

  /**
   * Runs `batch` (two or more writers of distinct documents) in one transaction and settles its
   * writers, but for those it hands back (returned) to run alone.
   */
  private async shared(batch: Writer[]): Promise<Writer[]> {
    const ids = batch.map((writer) => writer.id).sort();
    const outcomes = new Map<Writer, PromiseSettledResult<unknown>>();
    // The lock and the receipts' read (of every writer: which rows get locked is not known yet) go
    // right behind the BEGIN, in one round trip.
    const opening = (client: pg.PoolClient) => Promise.all([client.query<DocumentRow>(LOCK_FREE, [ids]), readAhead(client, batch)]);
    try {
      await inTransaction(this.options.pool, async (client, [locked, receipts]) => {
        const heads = new Map(locked.rows.map((row) => [row.id.toLowerCase(), documentFromRow(row)]));
        // A writer whose row was not locked (none yet, or another transaction holds it) is handed back.
        const runs = batch.flatMap((writer) => {
          const head = heads.get(writer.id);
          if (!head) return [];
          return [
            runWork(client, writer.id, head, receipts.get(writer), writer.work).then(
              (done): Ran => ({ writer, done }),
              (error: unknown): Ran => ({ writer, error }),
            ),
          ];
        });
        const flushes: Flush[] = [];
        for (const { writer, done, error } of await Promise.all(runs)) {
          if (done) flushes.push({ staged: done.staged, announce: (headVersion) => this.options.notice(writer.id, headVersion) });
          outcomes.set(writer, done ? { status: "fulfilled", value: done.result } : { status: "rejected", reason: error });
        }
        await flushStaged(client, flushes);
      }, opening);
    } catch (error) {
      // Nothing of the batch was written. When the connection or the database is gone, every writer
      // fails with it, as alone it would; otherwise all are handed back and run alone, their works
      // again on fresh transactions, so that only a failing document fails.
      if (!this.options.lost(error)) return batch;
      for (const writer of batch) writer.reject(error);
      return [];
    }
    for (const [writer, outcome] of outcomes) {
      if (outcome.status === "fulfilled") writer.resolve(outcome.value);
      else writer.reject(outcome.reason);
    }
    return batch.filter((writer) => !outcomes.has(writer));
  }
}

/** How a writer's work ended in a shared transaction: what it staged, or its error. */
interface Ran {
  writer: Writer;
  done?: { result: unknown; staged: StagedWrites };
  error?: unknown;
}

/** Runs `work` on the transaction of `client`, with the head and receipts already read under the lock. */
async function runWork<T>(
  client: pg.PoolClient,
  id: string,
  head: DocumentRecord | undefined,
  receipts: ReceiptsReadAhead | undefined,
  work: (tx: DocumentTransaction) => Promise<T>,
): Promise<{ result: T; staged: StagedWrites }> {
  const reads = new PostgresReads(client, id, undefined, { head, ...(receipts && { receipts }) });
  const staged = new StagedWrites(id);
  try {
    return { result: await work(documentTransaction(reads, staged)), staged };
  } finally {
    staged.seal();
  }
}

/**
 * Reads, in one statement, the receipts that `writers` name ahead. Sent behind their lock
 * statement, it runs once the locks are granted; READ COMMITTED on purpose: each statement takes its
 * own snapshot, so this one sees every receipt that a lock's last holder (on any instance)
 * committed, whereas REPEATABLE READ would fail a writer that had to wait for its lock.
 */
async function readAhead(client: pg.PoolClient, writers: readonly Writer[]): Promise<Map<Writer, ReceiptsReadAhead>> {
  const naming = writers.flatMap((writer) => (writer.ahead?.receipts?.length ? [{ writer, keys: writer.ahead.receipts }] : []));
  const rows = await readReceipts(client, naming.flatMap(({ writer, keys }) => keys.map((key) => ({ documentId: writer.id, ...key }))));
  const byDocument = new Map<string, ReceiptRow[]>();
  for (const row of rows) {
    const id = row.document_id.toLowerCase();
    const found = byDocument.get(id);
    if (found) found.push(row);
    else byDocument.set(id, [row]);
  }
  return new Map(naming.map(({ writer, keys }) => [writer, new ReceiptsReadAhead(keys, byDocument.get(writer.id) ?? [])]));
}

/**
 * No row to lock yet (the lock statement found none): writers of a new id serialize on an
 * advisory lock instead, then look again, since a writer that held it may have just created the row.
 */
async function lockNewDocument(client: pg.PoolClient, id: string): Promise<DocumentRecord | undefined> {
  await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [CREATION_LOCK_CLASS, id.toLowerCase()]);
  const again = await client.query<DocumentRow>(LOCK, [id]);
  return again.rows[0] && documentFromRow(again.rows[0]);
}
