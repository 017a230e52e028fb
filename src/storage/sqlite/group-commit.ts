import type { Database } from "better-sqlite3";

interface Pending {
  writes: (() => void)[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Commits the staged writes of every writer that finished in the same turn of the event loop in
 * one durable SQLite transaction: one fsync for many acknowledgements. Each writer's writes run in
 * a savepoint of their own, so one failing writer does not take the others down.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled: Promise<void> | undefined;

  constructor(private readonly db: Database) {}

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

  /** Resolves once everything handed in so far is committed. */
  async drain(): Promise<void> {
    await this.scheduled;
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.scheduled = undefined;
    const failures = new Map<Pending, unknown>();
    const applyOne = this.db.transaction((writes: (() => void)[]) => writes.forEach((write) => write()));
    try {
      this.db.transaction(() => {
        for (const item of batch) {
          try {
            applyOne(item.writes);
          } catch (error) {
            failures.set(item, error);
          }
        }
      }).immediate();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const item of batch) {
      if (failures.has(item)) item.reject(failures.get(item));
      else item.resolve();
    }
  }
}
