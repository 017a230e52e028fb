import type pg from "pg";
import type { DocumentRecord, DocumentTransaction, ReadAhead } from "../store.js";
import { StagedWrites, documentTransaction } from "../staged-writes.js";
import { DOCUMENT_COLUMNS, documentFromRow, type DocumentRow, type ReceiptRow } from "./postgres-rows.js";
import { PostgresReads, ReceiptsReadAhead, isUuid, receiptsLiteralRead, type Queryable } from "./postgres-reads.js";
import { LITERAL_FLUSH_CHARACTERS, flushAtCommit, flushStaged, inOneRoundTrip, inTransaction, type Flush } from "./postgres-transaction.js";

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
// one is under way, few enough that one lock statement and one COMMIT stay small.
const MAX_SHARED = 64;

/** Locks a document's row and reads it; `id` must be a UUID (checked by the caller), the one value written into the SQL. */
const lockStatement = (id: string): string => `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = '${id}' FOR UPDATE`;
/**
 * Locks the rows of `ids` (UUIDs, distinct) that no other transaction holds, skipping the others: a
 * shared transaction never waits for a row lock, so one busy document cannot hold up the rest, and
 * two instances cannot deadlock on their rows.
 */
const lockFreeStatement = (ids: readonly string[]): string =>
  `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id IN (${ids.map((id) => `'${id}'`).join(", ")}) ORDER BY id FOR UPDATE SKIP LOCKED`;

// Advisory-lock class (first key) of a document being created; the second key is a hash of its id.
const CREATION_LOCK_CLASS = 0x466f0003;

// Heads known per document (a row each, a few hundred bytes): the documents written recently.
const MAX_KNOWN_HEADS = 10_000;

/**
 * The stored head of each document this store committed (or read under its lock) last, as far as
 * it knows: a hint, never the truth. Another instance's commit notice (or lost notices) takes it
 * back, and a commit decided on a head that moved anyway fails its check and nothing is written.
 */
class KnownHeads {
  private readonly heads = new Map<string, DocumentRecord>();

  get(id: string): DocumentRecord | undefined {
    return this.heads.get(id);
  }

  set(id: string, head: DocumentRecord): void {
    // Deleted first, so that the Map's order is the order of use and the oldest goes first.
    this.heads.delete(id);
    this.heads.set(id, head);
    if (this.heads.size > MAX_KNOWN_HEADS) this.heads.delete(this.heads.keys().next().value!);
  }

  forget(id: string): void {
    this.heads.delete(id);
  }

  clear(): void {
    this.heads.clear();
  }
}

/**
 * The write transactions of the PostgreSQL store (docs/architecture.md, "Group commit"). Writers
 * of different documents that queue while the database is busy share one transaction: one round
 * trip locks their rows and reads their receipts, their works run on that transaction, and one
 * COMMIT writes what they staged. A lone writer gets a transaction of its own, and so does a writer
 * the shared transaction hands back: a document with no row yet, or whose row another transaction
 * holds. When a shared transaction fails for a reason other than a lost connection (one document's
 * flush refused, a read that failed, a deadlock with some other client), each of its writers is
 * handed back too, so that one document's failure costs no other document its write.
 */
export class PostgresWrites {
  private pending: Writer[] = [];
  private readonly heads = new KnownHeads();
  /** Ids in a transaction under way (lower case): another writer of one waits for the next. */
  private readonly busy = new Set<string>();
  private running = 0;
  private scheduled = false;

  constructor(private readonly options: PostgresWritesOptions) {}

  /** Another instance committed to `documentId` (its notice): the head known here is no longer the stored one. */
  committedElsewhere(documentId: string): void {
    this.heads.forget(documentId.toLowerCase());
  }

  /** Notices may have been missed: no known head can be trusted to be the stored one. */
  forgetHeads(): void {
    this.heads.clear();
  }

  write<T>(id: string, work: (tx: DocumentTransaction) => Promise<T>, ahead?: ReadAhead): Promise<T> {
    // The id goes into literal SQL: only a UUID may.
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

  /**
   * Runs one writer in a transaction of its own, settling it: in one round trip when the head it
   * finds is the one this store knows, else in two.
   */
  private async alone(writer: Writer): Promise<void> {
    try {
      const known = writer.solo ? undefined : this.heads.get(writer.id);
      const committed = known && (await this.writeOnKnownHead(writer, known));
      writer.resolve(committed ? committed.result : await this.writeAlone(writer));
    } catch (error) {
      this.heads.forget(writer.id);
      writer.reject(error);
    }
  }

  /**
   * Decides the work on the head this store knows, with no receipt among the keys read ahead (a
   * patch sent again is the rare case), and commits it in one round trip with two checks: that no
   * receipt of those keys is stored, and that no version was appended since that head. When one
   * fails nothing is written. Rows that cannot go with the COMMIT (milestone marks, a value without
   * a literal) are written once the lock shows that head and no such receipt. Answers `undefined`
   * when nothing was committed and the writer must run the usual way (its work runs again, on what
   * the lock reads). docs/architecture.md, "PostgreSQL's round trips".
   */
  private async writeOnKnownHead({ id, work, ahead }: Writer, head: DocumentRecord): Promise<{ result: unknown } | undefined> {
    const keys = ahead?.receipts ?? [];
    const receiptsRead = receiptsLiteralRead(id, keys);
    if (keys.length > 0 && receiptsRead === undefined) return undefined;
    let ran: { result: unknown; staged: StagedWrites };
    try {
      // Reads beyond the head (versions the service's cache does not hold) go to the pool: committed
      // versions do not change, and the commit checks that none was added meanwhile.
      ran = await runWork(this.options.pool, id, head, new ReceiptsReadAhead(keys, []), work);
    } catch {
      return undefined;
    }
    const { result, staged } = ran;
    const announce = (headVersion: number) => this.options.notice(id, headVersion);
    try {
      // Nothing written (every command refused, say): the answers stand if the head did and no receipt was there.
      if (staged.empty) return (await this.stillStored(id, head, receiptsRead)) ? { result } : undefined;
      // The head check of the COMMIT's SQL needs an appended version.
      const closing = staged.versions.length > 0 ? flushAtCommit([{ staged, announce }]) : undefined;
      if (closing !== undefined) {
        // The row lock first, as every writer of the document takes it: one that inserted its version
        // before waiting for the lock could deadlock with the lock's holder.
        const statements = [lockStatement(id), ...(receiptsRead ? [noReceiptGuard(receiptsRead)] : []), closing];
        await inOneRoundTrip(this.options.pool, statements.join("; "));
      } else if (!(await this.flushUnderLock(id, head, receiptsRead, staged, announce))) {
        this.heads.forget(id);
        return undefined;
      }
    } catch (error) {
      // A lost connection may or may not have committed: the writer fails, as it would the usual way.
      if (this.options.lost(error)) throw error;
      this.heads.forget(id);
      return undefined;
    }
    this.heads.set(id, staged.document ?? head);
    return { result };
  }

  /** Writes `staged` once the row lock shows `head` as the stored head and no receipt of `receiptsRead`; false (nothing written) otherwise. */
  private flushUnderLock(
    id: string,
    head: DocumentRecord,
    receiptsRead: string | undefined,
    staged: StagedWrites,
    announce: (headVersion: number) => string,
  ): Promise<boolean> {
    return inTransaction(
      this.options.pool,
      async (client, opened) => {
        const locked = opened[0]?.rows[0] as DocumentRow | undefined;
        if (!locked || documentFromRow(locked).version !== head.version || (opened[1]?.rows.length ?? 0) > 0) return false;
        await flushStaged(client, staged, announce);
        return true;
      },
      [lockStatement(id), ...(receiptsRead ? [receiptsRead] : [])].join("; "),
    );
  }

  /** Whether `head` is still the stored head of `id` and `receiptsRead` finds no receipt, in one round trip. */
  private async stillStored(id: string, head: DocumentRecord, receiptsRead: string | undefined): Promise<boolean> {
    const statements = [`SELECT version FROM documents WHERE id = '${id}'`, ...(receiptsRead ? [receiptsRead] : [])].join("; ");
    const answered = (await this.options.pool.query(statements)) as pg.QueryResult | pg.QueryResult[];
    const [stored, receipts] = Array.isArray(answered) ? answered : [answered];
    return (stored?.rows[0] as { version?: unknown } | undefined)?.version === head.version && (receipts?.rows.length ?? 0) === 0;
  }

  private async writeAlone({ id, work, ahead }: Writer): Promise<unknown> {
    // One round trip opens the transaction, locks the document's row and reads the receipts the
    // work asks for first: every round trip is time the document stays locked. READ COMMITTED on
    // purpose: every statement after the lock (the receipts' read included, each statement of a
    // simple query taking its own snapshot) sees all commits made before the lock was granted,
    // whereas REPEATABLE READ would fail a writer that had to wait for the lock.
    const receiptKeys = ahead?.receipts ?? [];
    const receiptsRead = receiptsLiteralRead(id, receiptKeys);
    const opening = [lockStatement(id), ...(receiptsRead ? [receiptsRead] : [])].join("; ");
    let stored: DocumentRecord | undefined;
    const result = await inTransaction(this.options.pool, async (client, opened, commitWith) => {
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
      stored = staged.document ?? head;
      return result;
    }, opening);
    if (stored) this.heads.set(id, stored);
    return result;
  }

  /**
   * Runs `batch` (two or more writers of distinct documents) in one transaction and settles its
   * writers, but for those it hands back (returned) to run alone.
   */
  private async shared(batch: Writer[]): Promise<Writer[]> {
    // The receipts' reads go with the lock statement, in the order of the writers that have one.
    const reads = batch.map((writer) => {
      const keys = writer.ahead?.receipts ?? [];
      return { keys, sql: receiptsLiteralRead(writer.id, keys) };
    });
    const ids = batch.map((writer) => writer.id).sort();
    const opening = [lockFreeStatement(ids), ...reads.flatMap((read) => (read.sql ? [read.sql] : []))].join("; ");
    const outcomes = new Map<Writer, PromiseSettledResult<unknown>>();
    // The head each document has once the transaction commits.
    const committed = new Map<string, DocumentRecord>();
    try {
      await inTransaction(this.options.pool, async (client, opened, commitWith) => {
        const heads = new Map((opened[0]!.rows as DocumentRow[]).map((row) => [row.id.toLowerCase(), documentFromRow(row)]));
        let next = 1;
        const receipts = reads.map((read) => (read.sql ? new ReceiptsReadAhead(read.keys, opened[next++]!.rows as ReceiptRow[]) : undefined));
        // A writer whose row was not locked (none yet, or another transaction holds it) is handed back.
        const runs = batch.flatMap((writer, index) => {
          const head = heads.get(writer.id);
          if (!head) return [];
          return [
            runWork(client, writer.id, head, receipts[index], writer.work).then(
              (done): Ran => ({ writer, done }),
              (error: unknown): Ran => ({ writer, error }),
            ),
          ];
        });
        const flushes: Flush[] = [];
        for (const { writer, done, error } of await Promise.all(runs)) {
          if (done) flushes.push({ staged: done.staged, announce: (headVersion) => this.options.notice(writer.id, headVersion) });
          outcomes.set(writer, done ? { status: "fulfilled", value: done.result } : { status: "rejected", reason: error });
          const stored = done?.staged.document ?? heads.get(writer.id);
          if (stored) committed.set(writer.id, stored);
        }
        commitWith(await this.closing(client, flushes));
      }, opening);
    } catch (error) {
      for (const writer of batch) this.heads.forget(writer.id);
      // Nothing of the batch was written. When the connection or the database is gone, every writer
      // fails with it, as alone it would; otherwise all are handed back and run alone, their works
      // again on fresh transactions, so that only a failing document fails.
      if (!this.options.lost(error)) return batch;
      for (const writer of batch) writer.reject(error);
      return [];
    }
    for (const [id, head] of committed) this.heads.set(id, head);
    for (const [writer, outcome] of outcomes) {
      if (outcome.status === "fulfilled") writer.resolve(outcome.value);
      else writer.reject(outcome.reason);
    }
    return batch.filter((writer) => !outcomes.has(writer));
  }

  /**
   * The literal SQL that goes with the COMMIT of a shared transaction: usually all of the flushes;
   * otherwise each document's own way, as alone (a flush that cannot be literal, or too long, is
   * written now on its own).
   */
  private async closing(client: pg.PoolClient, flushes: readonly Flush[]): Promise<string> {
    const all = flushAtCommit(flushes);
    if (all !== undefined) return all;
    const closings: string[] = [];
    let characters = 0;
    for (const flush of flushes) {
      const own = flushAtCommit([flush]);
      if (own !== undefined && characters + own.length <= LITERAL_FLUSH_CHARACTERS) {
        closings.push(own);
        characters += own.length;
      } else {
        await flushStaged(client, flush.staged, flush.announce);
      }
    }
    return closings.join("; ");
  }
}

/** How a writer's work ended in a shared transaction: what it staged, or its error. */
interface Ran {
  writer: Writer;
  done?: { result: unknown; staged: StagedWrites };
  error?: unknown;
}

/**
 * A statement that fails the transaction when `receiptsRead` (literal SQL from receiptsLiteralRead)
 * finds a receipt: a write decided as if there were none must not commit then.
 */
function noReceiptGuard(receiptsRead: string): string {
  return `DO $receipts$ BEGIN
    IF EXISTS (${receiptsRead}) THEN
      RAISE EXCEPTION 'a receipt named ahead is stored: the write runs again with it';
    END IF;
  END $receipts$`;
}

/** Runs `work` on the transaction of `client` (or on the pool), with the head and receipts already read or known. */
async function runWork<T>(
  client: Queryable,
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
