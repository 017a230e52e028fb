import BetterSqlite3, { type Database } from "better-sqlite3";
import { migrate } from "./sqlite-migrations.js";

/** WAL frames (1 KiB pages) after which a commit checkpoints the WAL into the database file. */
const WAL_CHECKPOINT_FRAMES = 10_000;
/** Above this the WAL file is truncated back after a checkpoint (it grows past it when one 1 MB-text commit lands late). */
const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/** Opens (creating and migrating) the database at `path`, or an in-memory one for `:memory:`. */
export function openDatabase(path: string, options: { busyTimeoutMs?: number }): Database {
  const db = new BetterSqlite3(path);
  // Small pages keep the bytes a one-line patch writes small (a page is the unit of every write);
  // it only takes effect when the file is created.
  db.pragma("page_size = 1024");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  // A checkpoint copies each page the WAL holds into the file once, however many commits rewrote
  // it, and each 1 KiB page it writes dirties a whole 4 KiB block of the page cache. At SQLite's
  // default (1,000 frames: a checkpoint every ~100 one-line patches, which write ~9 frames each)
  // the hot pages (page 1, the documents leaf, the leaves and interior pages the patches append
  // to) were copied over and over: ~5.6 KB of writes per patch on top of the WAL's ~13.7 KB in a
  // store-level experiment on a 1 MB document; at 10,000 frames (a ~10 MiB WAL, checkpointed about
  // every 1,000 patches; readers find pages through the WAL index in constant time) ~1.4 KB.
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_FRAMES}`);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  db.pragma("foreign_keys = ON");
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  migrate(db);
  return db;
}
