import { close, closeSync, fdatasync, fsync, open, openSync } from "node:fs";
import { dirname } from "node:path";
import { StorageUnavailableError } from "../store.js";

/** What a write (and the readiness ping) is refused with after a failed flush. */
export function flushFailed(cause: Error): StorageUnavailableError {
  return new StorageUnavailableError("the SQLite WAL could not be flushed to disk; restart the service", { cause });
}

/**
 * Makes SQLite's commits durable off the event loop. The database runs with `synchronous=NORMAL`
 * in WAL mode: a commit writes its frames to the WAL (into the OS's cache) without waiting for the
 * disk, and SQLite itself still syncs around every checkpoint. Before a commit is acknowledged,
 * {@link sync} flushes the WAL file with `fdatasync` on libuv's thread pool, so the main thread goes
 * on parsing and deciding the next requests while the disk works (docs/architecture.md, "Durable
 * acknowledgements"). Commits made while a flush runs share the next one: one flush covers every
 * frame written before it started.
 *
 * A failed flush leaves the state of the disk unknown; {@link failed} then holds the error and every
 * later sync fails with it, so the store stops acknowledging (the operator restarts the service,
 * and SQLite recovers the WAL from what is on disk).
 */
export class WalSync {
  private fd: number | undefined;
  /** The flush under way. */
  private running: Promise<void> | undefined;
  /** The flush that starts when the running one ends (for commits made after it started). */
  private queued: Promise<void> | undefined;
  failed: Error | undefined;

  constructor(private readonly walPath: string) {}

  /** Resolves once every WAL frame written before this call is on disk. */
  sync(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (!this.running) return this.start();
    // The running flush may have started before the caller's frames were written: the next one covers them.
    this.queued ??= this.running.then(
      () => {
        this.queued = undefined;
        return this.start();
      },
      (error: unknown) => {
        this.queued = undefined;
        throw error;
      },
    );
    return this.queued;
  }

  /** The flush a read must wait for (everything committed so far is durable when it resolves), if any. */
  pending(): Promise<void> | undefined {
    return this.queued ?? this.running;
  }

  /** Waits for the flushes under way, then closes the file handle. */
  async close(): Promise<void> {
    await this.pending()?.catch(() => undefined);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private start(): Promise<void> {
    const flush = new Promise<void>((resolve, reject) => {
      const first = this.fd === undefined;
      let fd: number;
      try {
        // Opened on the first flush: the WAL file exists once a commit wrote to it, and stays the
        // same file while this connection is open (a checkpoint rewinds it, never replaces it).
        fd = this.fd ??= openSync(this.walPath, "r");
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      const data = () => fdatasync(fd, (error) => (error ? reject(error) : resolve()));
      if (!first) return data();
      // A WAL file made by this connection is new: its directory entry is flushed once, too (SQLite
      // would do so at its own first sync of it, which with synchronous=NORMAL is the first checkpoint).
      syncDirectory(dirname(this.walPath), (error) => (error ? reject(error) : data()));
    }).then(
      () => {
        if (this.running === flush) this.running = undefined;
      },
      (error: unknown) => {
        if (this.running === flush) this.running = undefined;
        this.failed = error instanceof Error ? error : new Error(String(error));
        throw this.failed;
      },
    );
    this.running = flush;
    return flush;
  }
}

/** fsync of a directory, so that the entries of files made in it are on disk. */
function syncDirectory(path: string, done: (error: Error | null) => void): void {
  open(path, "r", (error, fd) => {
    if (error) return done(error);
    fsync(fd, (syncError) => close(fd, (closeError) => done(syncError ?? closeError ?? null)));
  });
}
