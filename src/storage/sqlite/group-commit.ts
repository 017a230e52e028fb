import type { Database } from "better-sqlite3";
import { flushFailed, type WalSync } from "./wal-sync.js";

interface Pending {
  writes: (() => void)[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Commits the staged writes of every writer that finished in the same turn of the event loop in
 * one SQLite transaction, and settles them once it is durable: one flush of the WAL for many
 * acknowledgements, run off the event loop by {@link WalSync} (none for an in-memory database).
 * When several writers share the transaction, each one's writes run in a savepoint of their own, so
 * one failing writer does not take the others down; a lone writer runs without one.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled: Promise<void> | undefined;
  private flushed: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly wal: WalSync | undefined,
  ) {}

  commit(writes: (() => void)[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ writes, resolve, reject });
      this.scheduled ??= new Promise<void>((done) =>
        setImmediate(() => {
          this.flush();
          done();
        }),
      );
    });
  }

  /** Resolves once everything handed in so far is committed and its flush has ended. */
  async drain(): Promise<void> {
    await this.scheduled;
    await this.flushed.catch(() => undefined);
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = undefined;
    // After a failed flush nothing more is committed: a write the store already queued would be
    // refused with its flush, yet stay in the file and be read back.
    if (this.wal?.failed) {
      for (const item of batch) item.reject(flushFailed(this.wal.failed));
      return;
    }
    const failures = new Map<Pending, unknown>();
    const applyOne = this.db.transaction((writes: (() => void)[]) => writes.forEach((write) => write()));
    try {
      // A lone writer (the usual case: one hot document's batch) needs no savepoint: its failure
      // rolls the whole transaction back. A savepoint makes SQLite copy every page the writes touch
      // into its statement journal first (docs/architecture.md, "Group commit").
      const [only] = batch;
      if (batch.length === 1 && only) applyOne.immediate(only.writes);
      else {
        this.db.transaction(() => {
          for (const item of batch) {
            try {
              applyOne(item.writes);
            } catch (error) {
              failures.set(item, error);
            }
          }
        }).immediate();
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [item, error] of failures) item.reject(error);
    const committed = batch.filter((item) => !failures.has(item));
    if (committed.length === 0) return;
    if (!this.wal) {
      for (const item of committed) item.resolve();
      return;
    }
    this.flushed = this.wal.sync().then(
      () => committed.forEach((item) => item.resolve()),
      (error: unknown) => committed.forEach((item) => item.reject(flushFailed(error as Error))),
    );
  }
}
