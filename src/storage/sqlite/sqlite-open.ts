import BetterSqlite3, { type Database } from "better-sqlite3";
import { migrate } from "./sqlite-migrations.js";

/**
 * WAL frames (1 KiB pages) after which a commit checkpoints the WAL into the database file. 20,000
 * since the WAL is flushed off the event loop (wal-sync.ts): without SQLite's own sync at each
 * commit it no longer pads a commit to the next 4 KiB sector, so the part-filled last page of the
 * WAL is written again by the next commit's flush (about +0.6-1 KB per one-line patch, measured);
 * checkpointing half as often more than pays for it (docs/benchmarks.md).
 */
const WAL_CHECKPOINT_FRAMES = 20_000;
/** Above this the WAL file is truncated back after a checkpoint (20,000 frames are about 21 MB; it grows past that when one 1 MB-text commit lands late). */
const WAL_SIZE_LIMIT_BYTES = 24 * 1024 * 1024;

/** Opens (creating and migrating) the database at `path`, or an in-memory one for `:memory:`. */
export function openDatabase(path: string, options: { busyTimeoutMs?: number }): { db: Database; walFile: string | undefined } {
  const db = new BetterSqlite3(path);
  // Small pages keep the bytes a one-line patch writes small (a page is the unit of every write);
  // it only takes effect when the file is created.
  db.pragma("page_size = 1024");
  // A file system without the shared memory WAL needs keeps the rollback journal (SQLite says so by
  // the mode it reports), and an in-memory database has no file to flush.
  const wal = db.pragma("journal_mode = WAL", { simple: true }) === "wal" && path !== ":memory:";
  // With a WAL, commits do not wait for the disk on the event loop: the store flushes the WAL on the
  // thread pool before it acknowledges them (wal-sync.ts), which is as durable as FULL for what is
  // acknowledged. SQLite still syncs around every checkpoint. Without one, SQLite syncs each commit.
  db.pragma(wal ? "synchronous = NORMAL" : "synchronous = FULL");
  // A checkpoint copies each page the WAL holds into the file once, however many commits rewrote
  // it: the default of 1,000 frames copied the hot pages (page 1, the documents leaf, the leaves the
  // patches append to) over and over. A longer WAL (readers find pages through the WAL index in
  // constant time) cuts the checkpoint's share of a patch's disk writes several times; the
  // measurement is in docs/benchmarks.md#storage-measurements-behind-the-code.
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_FRAMES}`);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  // The page cache stays at SQLite's default (about 2 MB): 8 MB measured the same, and more costs
  // CPU at commits (docs/architecture.md, "Group commit").
  db.pragma("foreign_keys = ON");
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  migrate(db);
  return { db, walFile: wal ? `${db.name}-wal` : undefined };
}
