import BetterSqlite3, { type Database } from "better-sqlite3";
import { StorageInUseError } from "../store.js";

/** The name of the lock file next to a database file (see docs/sqlite-single-process.md). */
export function lockFileName(path: string): string {
  return `${path}.lock`;
}

/**
 * Holds the right to serve one SQLite file, for the life of this process or until released.
 *
 * Each process keeps its own write queue and caches for the file, so a second process on the same
 * file answers 500s and misses the first one's commits: it must be refused, not warned about. The
 * database itself stays unlocked between transactions (an exclusive locking mode on it would block
 * an online backup); instead the lock is taken on a sidecar file, itself a tiny SQLite database
 * held with an exclusive lock inside a never-ending transaction. That is an OS-level lock the kernel
 * drops when the process dies, even on kill -9, so a crashed service never leaves a stale lock.
 */
export class SqliteFileLock {
  private constructor(private readonly db: Database | undefined) {}

  /** Takes the lock of `path`, or throws {@link StorageInUseError} at once when another holder has it. */
  static acquire(path: string): SqliteFileLock {
    const lockPath = lockFileName(path);
    const db = new BetterSqlite3(lockPath);
    try {
      // No waiting: a held lock means another process serves the file, and waiting would not change that.
      db.pragma("busy_timeout = 0");
      // The lock file is never written; an in-memory journal keeps a `-journal` file from appearing.
      db.pragma("journal_mode = MEMORY");
      db.pragma("locking_mode = EXCLUSIVE");
      db.exec("BEGIN EXCLUSIVE");
    } catch (error) {
      db.close();
      const code = (error as { code?: unknown }).code;
      if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") {
        throw new StorageInUseError(`${path} is in use by another process (it holds ${lockPath}); one process per SQLite file`);
      }
      throw error;
    }
    return new SqliteFileLock(db);
  }

  release(): void {
    if (!this.db?.open) return;
    this.db.close();
  }
}
