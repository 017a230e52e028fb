import type pg from "pg";
import type { DocumentRecord, DocumentTransaction, ReadAhead } from "../store.js";
import { StagedWrites, documentTransaction } from "../staged-writes.js";
import { DOCUMENT_COLUMNS, documentFromRow, type DocumentRow, type ReceiptRow } from "./postgres-rows.js";
import { PostgresReads, ReceiptsReadAhead, receiptsLiteralRead } from "./postgres-reads.js";
import { flushAtCommit, flushStaged, inTransaction, type Flush } from "./postgres-transaction.js";

/** One call of Store.write waiting for its transaction; its id is a checked UUID. */
interface Writer {
  id: string;
  work: (tx: DocumentTransaction) => Promise<unknown>;
  ahead: ReadAhead | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface PostgresWritesOptions {
  pool: pg.Pool;
  /** The commit notice of a document's new head, sent with the commit (commit-notifier.ts). */
  notice: (documentId: string, headVersion: number) => string;
  /** Whether an error says the database cannot serve now (then a failed shared transaction is not retried). */
  unavailable: (error: unknown) => boolean;
}

// Documents per shared transaction: enough to share one commit among the writers that queue while
// one is under way, few enough that one lock statement and one COMMIT stay small.
const MAX_SHARED = 64;
// Transactions under way at once, of the pool's connections: the others serve reads.
const MAX_RUNNING = 2;

/** Locks a document's row and reads it; `id` must be a UUID (checked by the caller), the one value written into the SQL. */
const lockStatement = (id: string): string => `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = '${id}' FOR UPDATE`;
/** Locks the rows of `ids` (UUIDs, distinct) in id order, the order every instance locks them in, so two never deadlock. */
const lockAllStatement = (ids: readonly string[]): string =>
  `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id IN (${ids.map((id) => `'${id}'`).join(", ")}) ORDER BY id FOR UPDATE`;

// Advisory-lock class (first key) of a document being created; the second key is a hash of its id.
const CREATION_LOCK_CLASS = 0x466f0003;

/**
 * The write transactions of the PostgreSQL store (docs/architecture.md, "Group commit"). Writers
 * of different documents that queue while the database is busy share one transaction: one round
 * trip locks all their rows (in id order) and reads their receipts, their works run on that
 * transaction, and one COMMIT writes what they staged. A lone writer, and a document that has no
 * row yet, get a transaction of their own. When a shared transaction fails for a reason other than
 * the database's unavailability (one document's flush refused, a deadlock), each of its writers
 * runs again alone, so that one document's failure costs no other document its write.
 */
export class PostgresWrites {
  private pending: Writer[] = [];
  /** Ids in a transaction under way (lower case): another writer of one waits for the next. */
  private readonly busy = new Set<string>();
  private running = 0;
  private scheduled = false;

  constructor(private readonly options: PostgresWritesOptions) {}

  write<T>(id: string, work: (tx: DocumentTransaction) => Promise<T>, ahead?: ReadAhead): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ id: id.toLowerCase(), work, ahead, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= MAX_RUNNING || this.pending.length === 0) return;
    this.scheduled = true;
    // After the current turn of the event loop, so that writers finishing together share a transaction.
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    while (this.running < MAX_RUNNING) {
      const batch = this.take();
      if (batch.length === 0) return;
      this.running += 1;
      for (const writer of batch) this.busy.add(writer.id);
      const [only] = batch;
      const done = batch.length === 1 && only ? this.alone(only) : this.shared(batch);
      void done.finally(() => {
        this.running -= 1;
        for (const writer of batch) this.busy.delete(writer.id);
        this.schedule();
      });
    }
  }

  /** Up to {@link MAX_SHARED} pending writers of distinct documents not in a transaction under way, in the order they came. */
  private take(): Writer[] {
    const batch: Writer[] = [];
    const taken = new Set<string>();
    const left: Writer[] = [];
    for (const writer of this.pending) {
      if (batch.length < MAX_SHARED && !this.busy.has(writer.id) && !taken.has(writer.id)) {
        batch.push(writer);
        taken.add(writer.id);
      } else {
        left.push(writer);
      }
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

  private writeAlone({ id, work, ahead }: Writer): Promise<unknown> {
    // One round trip opens the transaction, locks the document's row and reads the receipts the
    // work asks for first: every round trip is time the document stays locked. READ COMMITTED on
    // purpose: every statement after the lock (the receipts' read included, each statement of a
    // simple query taking its own snapshot) sees all commits made before the lock was granted,
    // whereas REPEATABLE READ would fail a writer that had to wait for the lock.
    const receiptKeys = ahead?.receipts ?? [];
    const receiptsRead = receiptsLiteralRead(id, receiptKeys);
    const opening = [lockStatement(id), ...(receiptsRead ? [receiptsRead] : [])].join("; ");
    return inTransaction(this.options.pool, async (client, opened, commitWith) => {
      const locked = opened[0]?.rows[0] as DocumentRow | undefined;
      const head = locked ? documentFromRow(locked) : await lockNewDocument(client, id);
      // Read before a lock on a new id was granted, the receipts may be stale: read again then.
      const receipts = locked && receiptsRead ? new ReceiptsReadAhead(receiptKeys, opened[1]!.rows as ReceiptRow[]) : undefined;
      const { result, staged } = await runWork(client, id, head, receipts, work);
      // The notice is delivered by PostgreSQL only when the transaction commits, and in commit order.
      const announce = (headVersion: number) => this.options.notice(id, headVersion);
      // Usually the flush goes with the COMMIT, one round trip less with the row locked.
      const closing = flushAtCommit([{ staged, announce }]);
      if (closing === undefined) await flushStaged(client, staged, announce);
      else commitWith(closing);
      return result;
    }, opening);
  }

  /** Runs `batch` (two or more writers of distinct documents) in one transaction, settling each writer. */
  private async shared(batch: Writer[]): Promise<void> {
    // The receipts' reads go with the lock statement, in the order of the writers that have one.
    const reads = batch.map((writer) => {
      const keys = writer.ahead?.receipts ?? [];
      return { keys, sql: receiptsLiteralRead(writer.id, keys) };
    });
    const ids = batch.map((writer) => writer.id).sort();
    const opening = [lockAllStatement(ids), ...reads.flatMap((read) => (read.sql ? [read.sql] : []))].join("; ");
    const outcomes = new Map<Writer, PromiseSettledResult<unknown>>();
    // Writers of documents with no row yet: each runs alone, taking the advisory lock of a new document.
    const created: Promise<void>[] = [];
    const handedOn = new Set<Writer>();
    try {
      await inTransaction(this.options.pool, async (client, opened, commitWith) => {
        const heads = new Map((opened[0]!.rows as DocumentRow[]).map((row) => [row.id.toLowerCase(), documentFromRow(row)]));
        let next = 1;
        const receipts = reads.map((read) => (read.sql ? new ReceiptsReadAhead(read.keys, opened[next++]!.rows as ReceiptRow[]) : undefined));
        const runs: Promise<{ writer: Writer; done?: { result: unknown; staged: StagedWrites }; error?: unknown }>[] = [];
        batch.forEach((writer, index) => {
          const head = heads.get(writer.id);
          if (head) runs.push(runWork(client, writer.id, head, receipts[index], writer.work).then((done) => ({ writer, done }), (error: unknown) => ({ writer, error })));
          else {
            handedOn.add(writer);
            created.push(this.alone(writer));
          }
        });
        const flushes: Flush[] = [];
        for (const { writer, done, error } of await Promise.all(runs)) {
          if (done) flushes.push({ staged: done.staged, announce: (headVersion) => this.options.notice(writer.id, headVersion) });
          outcomes.set(writer, done ? { status: "fulfilled", value: done.result } : { status: "rejected", reason: error });
        }
        // Usually all of it goes with the COMMIT; otherwise each document's own way, as alone.
        const closing = flushAtCommit(flushes);
        if (closing !== undefined) commitWith(closing);
        else {
          const closings: string[] = [];
          for (const flush of flushes) {
            const own = flushAtCommit([flush]);
            if (own === undefined) await flushStaged(client, flush.staged, flush.announce);
            else closings.push(own);
          }
          if (closings.length > 0) commitWith(closings.join("; "));
        }
      }, opening);
    } catch (error) {
      // Nothing of the batch was written. The writers that were not handed on run again alone (their
      // work again, on a fresh transaction), so that one document's refused flush or a deadlock fails
      // only that document; when the database cannot serve, they fail with it, as alone they would.
      const retry = batch.filter((writer) => !handedOn.has(writer));
      if (this.options.unavailable(error)) for (const writer of retry) writer.reject(error);
      else await Promise.all(retry.map((writer) => this.alone(writer)));
      await Promise.all(created);
      return;
    }
    await Promise.all(created);
    for (const [writer, outcome] of outcomes) {
      if (outcome.status === "fulfilled") writer.resolve(outcome.value);
      else writer.reject(outcome.reason);
    }
  }
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
 * No row to lock yet (the lock statement found none): writers of a new id serialize on an
 * advisory lock instead, then look again, since a writer that held it may have just created the row.
 */
async function lockNewDocument(client: pg.PoolClient, id: string): Promise<DocumentRecord | undefined> {
  await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [CREATION_LOCK_CLASS, id.toLowerCase()]);
  const again = await client.query<DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = $1 FOR UPDATE`, [id]);
  return again.rows[0] && documentFromRow(again.rows[0]);
}
