import { closeSync, existsSync, openSync, renameSync, rmSync } from "node:fs";
import { PRIVATE_FILE_MODE } from "./private-files.js";
import BetterSqlite3 from "better-sqlite3";

/** What a finished backup holds. */
export interface BackupResult {
  /** Bytes of the copy. */
  bytes: number;
  /** Documents in the copy, deleted ones included. */
  documents: number;
}

/**
 * Copies the SQLite database at `source` to `target` through SQLite's online backup API, while the
 * service keeps writing to it: the copy is one consistent state of the database, at least as new as
 * the moment the backup began, so it holds every change acknowledged before. The copy is written
 * beside `target` and renamed over it once checked, so a failed run never leaves half a file there.
 *
 * The source is opened as a second, ordinary connection (never SQLite's exclusive locking mode):
 * the running service and an `sqlite3 FILE .backup` of another operator are not disturbed.
 */
export async function backupSqlite(source: string, target: string, options: { busyTimeoutMs?: number } = {}): Promise<BackupResult> {
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  // Created private before SQLite writes the copy into it: a backup holds every document.
  closeSync(openSync(partial, "w", PRIVATE_FILE_MODE));
  const db = new BetterSqlite3(source, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // All remaining pages in each step: a step reads one snapshot, and a write of the service
    // between two small steps would restart the copy (again and again under a steady load).
    await db.backup(partial, { progress: () => 1_000_000_000 });
  } finally {
    db.close();
  }
  let result: BackupResult;
  const copy = new BetterSqlite3(partial, { fileMustExist: true });
  try {
    const check = copy.pragma("quick_check", { simple: true });
    if (check !== "ok") throw new Error(`the copy fails SQLite's quick_check: ${String(check)}`);
    const documents = (copy.prepare("SELECT count(*) AS n FROM documents").get() as { n: number }).n;
    // The copy is a single file: its WAL folded in, so that it can be moved and opened alone.
    copy.pragma("wal_checkpoint(TRUNCATE)");
    copy.pragma("journal_mode = DELETE");
    const pages = copy.pragma("page_count", { simple: true }) as number;
    const pageSize = copy.pragma("page_size", { simple: true }) as number;
    result = { bytes: pages * pageSize, documents };
  } catch (error) {
    copy.close();
    rmSync(partial, { force: true });
    throw error;
  }
  copy.close();
  renameSync(partial, target);
  return result;
}
