import type { Database } from "better-sqlite3";
import { flushFailed, type WalSync } from "./wal-sync.js";

interface Pending {
  writes: (() => void)[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Commits the staged writes of the document writers in one SQLite transaction per flush of the WAL,
 * and settles them once it is durable (docs/architecture.md, "Group commit"): while a flush runs
 * ({@link WalSync}, off the event loop), the writers that finish wait and are committed together
 * when it ends, right before the next flush, which they would have waited for anyway. Writers of
 * many documents, each with a batch of one patch, thus share one transaction and one flush.
 * The transaction runs without savepoints; when one writer fails, it is rolled back and run again
 * with a savepoint per writer, so that only the failing writer's rows are left out.
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
          const go = () => {
            this.flush();
            done();
          };
          // The writers that finish while a flush runs are committed when it ends, all together.
          const running = this.wal?.pending();
          if (running) running.then(go, go);
          else go();
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
    const applyAll = (items: Pending[]) => {
      for (const item of items) for (const write of item.writes) write();
    };
    try {
      try {
        // No savepoints first: a savepoint makes SQLite copy every page the writes touch into its
        // statement journal (docs/architecture.md, "Group commit"), and writers rarely fail.
        this.db.transaction(applyAll).immediate(batch);
      } catch (error) {
        if (batch.length === 1) throw error;
        // Rolled back: again, each writer in a savepoint of its own, so one failure leaves the others in.
        const applyOne = this.db.transaction((writes: (() => void)[]) => writes.forEach((write) => write()));
        this.db.transaction(() => {
          for (const item of batch) {
            try {
              applyOne(item.writes);
            } catch (failure) {
              failures.set(item, failure);
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
