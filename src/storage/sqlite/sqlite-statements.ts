import type { Database } from "better-sqlite3";
import { COMPACTION_CLEARS, compactableVersion, documentsNeedingSnapshot } from "../compaction-rule.js";
import type { DocumentRow, ReceiptRow, SnapshotRow, VersionRow, VersionSummaryRow } from "./sqlite-rows.js";

/** Versions whose ops one compaction statement drops; the event loop runs between statements. */
export const COMPACTION_CHUNK = 2000;

/** Every statement of the store, prepared once per connection. */
export function prepareStatements(db: Database) {
  return {
    document: db.prepare<[string], DocumentRow>("SELECT * FROM documents WHERE id = ?"),
    documents: db.prepare<[], DocumentRow>("SELECT * FROM documents WHERE deleted = 0 ORDER BY created_at, id"),
    version: db.prepare<[string, number], VersionRow>("SELECT * FROM versions WHERE document_id = ? AND version = ?"),
    versions: db.prepare<[string, number, number], VersionSummaryRow>(
      `SELECT document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum
       FROM versions WHERE document_id = ? AND version > ? AND version <= ? ORDER BY version`,
    ),
    milestones: db.prepare<[string], VersionRow>("SELECT * FROM versions WHERE document_id = ? AND milestone = 1 ORDER BY version"),
    snapshot: db.prepare<[string], SnapshotRow>("SELECT version, text FROM snapshots WHERE document_id = ?"),
    milestoneTextAtOrBefore: db.prepare<[string, number], SnapshotRow>(
      "SELECT version, text FROM versions WHERE document_id = ? AND milestone = 1 AND version <= ? AND text IS NOT NULL ORDER BY version DESC LIMIT 1",
    ),
    receipt: db.prepare<[string, string, number], ReceiptRow>(
      "SELECT * FROM patch_receipts WHERE document_id = ? AND client_id = ? AND seq = ?",
    ),
    putDocument: db.prepare(
      `INSERT INTO documents (id, title, version, deleted, created_at, updated_at, checksum)
       VALUES (@id, @title, @version, @deleted, @createdAt, @updatedAt, @checksum)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, version = excluded.version, deleted = excluded.deleted,
         updated_at = excluded.updated_at, checksum = excluded.checksum`,
    ),
    appendVersion: db.prepare(
      `INSERT INTO versions (document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum, text)
       VALUES (@documentId, @version, @changeType, @milestone, @createdAt, @clientId, @displayName, @title, @ops, @checksum, @text)`,
    ),
    storedHead: db.prepare<[string], { head: number }>("SELECT coalesce(max(version), 0) AS head FROM versions WHERE document_id = ?"),
    markMilestone: db.prepare("UPDATE versions SET milestone = 1, text = ? WHERE document_id = ? AND version = ?"),
    putSnapshot: db.prepare(
      `INSERT INTO snapshots (document_id, version, text) VALUES (?, ?, ?)
       ON CONFLICT (document_id) DO UPDATE SET version = excluded.version, text = excluded.text`,
    ),
    putReceipt: db.prepare(
      `INSERT INTO patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    needingSnapshot: db.prepare<[number], { id: string }>(documentsNeedingSnapshot("?")),
    // One chunk at a time: better-sqlite3 runs on the event loop, so a single statement over a
    // million versions would stall every request for seconds.
    compactVersions: db.prepare(
      `UPDATE versions SET ${COMPACTION_CLEARS}
       WHERE (document_id, version) IN (
         SELECT v.document_id, v.version FROM versions v
         JOIN documents d ON d.id = v.document_id
         JOIN snapshots s ON s.document_id = v.document_id
         WHERE ${compactableVersion("?")}
         LIMIT ${COMPACTION_CHUNK})`,
    ),
    compactReceipts: db.prepare("DELETE FROM patch_receipts WHERE created_at < ?"),
    listLock: db.prepare<[], { failures: number; locked_until: number }>("SELECT failures, locked_until FROM list_lock WHERE id = 1"),
    recordFailure: db.prepare<[{ now: number; max: number; lockMs: number }], { failures: number; locked_until: number }>(
      `UPDATE list_lock SET
         failures = CASE WHEN failures + 1 >= @max THEN 0 ELSE failures + 1 END,
         locked_until = CASE WHEN failures + 1 >= @max THEN @now + @lockMs ELSE locked_until END
       WHERE id = 1 AND locked_until <= @now
       RETURNING failures, locked_until`,
    ),
    resetFailures: db.prepare("UPDATE list_lock SET failures = 0 WHERE id = 1"),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
