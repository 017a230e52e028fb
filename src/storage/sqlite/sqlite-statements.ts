import type { Database, RunResult } from "better-sqlite3";
import { COMPACTION_CLEARS, compactableVersion, documentsNeedingSnapshot } from "../compaction-rule.js";
import type { DocumentRow, ReceiptRow, SnapshotRow, VersionRow, VersionSummaryRow } from "./sqlite-rows.js";

/**
 * A prepared statement as the adapter uses it. better-sqlite3's own statement type cannot be named
 * in the emitted declarations (it lives in an unexported namespace), so the statements are typed by this.
 */
export interface Prepared<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): RunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

function prepare<P extends unknown[] = unknown[], R = unknown>(db: Database, sql: string): Prepared<P, R> {
  return db.prepare<P, R>(sql);
}

/** Versions whose ops one compaction statement drops; the event loop runs between statements. */
export const COMPACTION_CHUNK = 2000;

/** Every statement of the store, prepared once per connection. */
export function prepareStatements(db: Database) {
  return {
    document: prepare<[string], DocumentRow>(db, "SELECT * FROM documents WHERE id = ?"),
    documents: prepare<[], DocumentRow>(db, "SELECT * FROM documents WHERE deleted = 0 ORDER BY created_at, id"),
    version: prepare<[string, number], VersionRow>(db, "SELECT * FROM versions WHERE document_id = ? AND version = ?"),
    versions: prepare<[string, number, number], VersionSummaryRow>(db, 
      `SELECT document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum
       FROM versions WHERE document_id = ? AND version > ? AND version <= ? ORDER BY version`,
    ),
    versionHeads: prepare<[string, number, number], VersionRow & { ops_bytes: number | null }>(db, 
      `SELECT document_id, version, change_type, milestone, created_at, client_id, display_name, title, NULL AS ops, checksum, NULL AS text,
         octet_length(ops) AS ops_bytes
       FROM versions WHERE document_id = ? AND version > ? AND version <= ? ORDER BY version`,
    ),
    milestones: prepare<[string, number, number], VersionRow>(db, 
      `SELECT document_id, version, change_type, milestone, created_at, client_id, display_name, title, NULL AS ops, checksum, text
       FROM versions WHERE document_id = ? AND milestone = 1 AND version > ? ORDER BY version LIMIT ?`,
    ),
    snapshot: prepare<[string], SnapshotRow>(db, "SELECT version, text FROM snapshots WHERE document_id = ?"),
    milestoneTextAtOrBefore: prepare<[string, number], SnapshotRow>(db, 
      "SELECT version, text FROM versions WHERE document_id = ? AND milestone = 1 AND version <= ? AND text IS NOT NULL ORDER BY version DESC LIMIT 1",
    ),
    receipt: prepare<[string, string, number], ReceiptRow>(db, 
      `SELECT r.document_id, r.client_id, r.seq, r.request_hash, r.version, coalesce(o.ops, r.ops_since_base) AS ops_since_base, r.created_at,
         r.shifted_base, r.shifted_through
       FROM patch_receipts r LEFT JOIN receipt_ops o ON o.id = r.ops_ref
       WHERE r.document_id = ? AND r.client_id = ? AND r.seq = ?`,
    ),
    putDocument: prepare(db, 
      `INSERT INTO documents (id, title, version, deleted, created_at, updated_at, checksum)
       VALUES (@id, @title, @version, @deleted, @createdAt, @updatedAt, @checksum)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, version = excluded.version, deleted = excluded.deleted,
         updated_at = excluded.updated_at, checksum = excluded.checksum`,
    ),
    appendVersion: prepare(db, 
      `INSERT INTO versions (document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum, text)
       VALUES (@documentId, @version, @changeType, @milestone, @createdAt, @clientId, @displayName, @title, @ops, @checksum, @text)`,
    ),
    storedHead: prepare<[string], { head: number }>(db, "SELECT coalesce(max(version), 0) AS head FROM versions WHERE document_id = ?"),
    markMilestone: prepare(db, "UPDATE versions SET milestone = 1, text = ? WHERE document_id = ? AND version = ?"),
    putSnapshot: prepare(db, 
      `INSERT INTO snapshots (document_id, version, text) VALUES (?, ?, ?)
       ON CONFLICT (document_id) DO UPDATE SET version = excluded.version, text = excluded.text`,
    ),
    putReceipt: prepare(db, 
      `INSERT INTO patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at, ops_ref, shifted_base, shifted_through)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    putReceiptOps: prepare(db, "INSERT INTO receipt_ops (ops) VALUES (?)"),
    needingSnapshot: prepare<[number], { id: string }>(db, documentsNeedingSnapshot("?")),
    // One chunk at a time: better-sqlite3 runs on the event loop, so a single statement over a
    // million versions would stall every request for seconds.
    compactVersions: prepare(db, 
      `UPDATE versions SET ${COMPACTION_CLEARS}
       WHERE (document_id, version) IN (
         SELECT v.document_id, v.version FROM versions v
         JOIN documents d ON d.id = v.document_id
         JOIN snapshots s ON s.document_id = v.document_id
         WHERE ${compactableVersion("?")}
         LIMIT ${COMPACTION_CHUNK})`,
    ),
    compactReceiptOps: prepare(db, "DELETE FROM receipt_ops WHERE id IN (SELECT ops_ref FROM patch_receipts WHERE created_at < ? AND ops_ref IS NOT NULL)"),
    compactReceipts: prepare(db, "DELETE FROM patch_receipts WHERE created_at < ?"),
    listLock: prepare<[], { failures: number; locked_until: number }>(db, "SELECT failures, locked_until FROM list_lock WHERE id = 1"),
    recordFailure: prepare<[{ now: number; max: number; lockMs: number }], { failures: number; locked_until: number }>(db, 
      `UPDATE list_lock SET
         failures = CASE WHEN failures + 1 >= @max THEN 0 ELSE failures + 1 END,
         locked_until = CASE WHEN failures + 1 >= @max THEN @now + @lockMs ELSE locked_until END
       WHERE id = 1 AND locked_until <= @now
       RETURNING failures, locked_until`,
    ),
    resetFailures: prepare<[number]>(db, "UPDATE list_lock SET failures = 0, locked_until = CASE WHEN locked_until = ? THEN 0 ELSE locked_until END WHERE id = 1"),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
