import { pendingMigrations } from "../migration-runner.js";
import type { Database } from "better-sqlite3";

/**
 * Schema changes in order; each runs once, inside a transaction, and is recorded.
 *
 * Every committed patch writes each page it touches to the WAL and, at the checkpoint, to the
 * file again, so the hot path touches as few pages as it can: versions and receipts are keyed
 * tables (WITHOUT ROWID, no separate key index) and carry no secondary index that every insert
 * would update; compaction, an hourly job, scans instead. One exception: the partial index of the
 * receipts that refer to versions (the third migration). Without it compaction would scan every
 * receipt for every version it clears; its inserts go to its last leaf page (one document, rising
 * bases), which a batch's receipts share.
 */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    version INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    checksum TEXT NOT NULL
  );
  CREATE INDEX documents_by_creation ON documents (created_at, id);

  CREATE TABLE versions (
    document_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    change_type TEXT NOT NULL,
    milestone INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    client_id TEXT,
    display_name TEXT,
    title TEXT NOT NULL,
    ops TEXT,
    checksum TEXT NOT NULL,
    text TEXT,
    PRIMARY KEY (document_id, version)
  ) WITHOUT ROWID;
  CREATE INDEX versions_milestones ON versions (document_id, version) WHERE milestone = 1;

  CREATE TABLE snapshots (
    document_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    text TEXT NOT NULL
  );

  CREATE TABLE patch_receipts (
    document_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    request_hash TEXT NOT NULL,
    version INTEGER NOT NULL,
    ops_since_base TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (document_id, client_id, seq)
  ) WITHOUT ROWID;

  CREATE TABLE list_lock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    failures INTEGER NOT NULL,
    locked_until INTEGER NOT NULL
  );
  INSERT INTO list_lock (id, failures, locked_until) VALUES (1, 0, 0);
  `,
  // A receipt's opsSinceBase grows with the number of versions its patch was shifted over (tens of
  // KB for an author among hundreds). Stored in the keyed receipts table, such rows made its B-tree
  // so sparse that the lookup every patch makes (a miss, for a new seq) took about 240 µs, and an
  // insert 350 µs (measured: 8,000 receipts of 35 KB). Large ones now live in a table of their own,
  // referenced by `ops_ref`; small ones (the common "[]") stay in the row, as before.
  `
  ALTER TABLE patch_receipts ADD COLUMN ops_ref INTEGER;
  CREATE TABLE receipt_ops (
    id INTEGER PRIMARY KEY,
    ops TEXT NOT NULL
  );
  `,
  // A receipt may keep, instead of its ops, the versions its patch was shifted over: a repeat
  // composes the answer from them again, and compaction keeps their ops while the receipt lives
  // (docs/architecture.md, "Receipts"). The index serves compaction's check for such receipts.
  `
  ALTER TABLE patch_receipts ADD COLUMN shifted_base INTEGER;
  ALTER TABLE patch_receipts ADD COLUMN shifted_through INTEGER;
  CREATE INDEX patch_receipts_by_shifted_base ON patch_receipts (document_id, shifted_base) WHERE shifted_base IS NOT NULL;
  `,
  // Read-only links (docs/sharing.md): at most one per document; the UNIQUE constraint is the index
  // every request under /read/ looks its link up by.
  `
  CREATE TABLE read_links (
    document_id TEXT PRIMARY KEY,
    read_id TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );
  `,
];

/** Brings the schema up to date; safe to run at every start. */
export function migrate(db: Database): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = (db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((row) => row.version);
  for (const { version, sql } of pendingMigrations(MIGRATIONS, applied)) {
    db.transaction(() => {
      db.exec(sql);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(version, Date.now());
    }).immediate();
  }
}
