import { constants, deflateRawSync, inflateRawSync } from "node:zlib";
import type { NormalizedOp } from "../../core/normalized-op.js";
import type { DocumentRecord, MilestoneRecord, VersionHead, PatchReceipt, Snapshot, VersionRecord, VersionSummary } from "../store.js";
import { receiptOf, type DocumentRowOf, type ReceiptRowOf, type SnapshotRowOf, type VersionRowOf } from "../row-shapes.js";

/**
 * A full text (a milestone's, a snapshot's) as stored: TEXT as it is, or its UTF-8 bytes deflated
 * (raw DEFLATE, RFC 1951) as a BLOB once it is large. SQLite keeps the storage class of each value,
 * so the two tell themselves apart and rows written before compression read back unchanged.
 * A snapshot of a 1 MB text is rewritten about every 1,000 patches; deflated it writes a fraction
 * of the pages, into the WAL and again at the checkpoint (PostgreSQL's TOAST does the same there).
 */
export type StoredText = string | Buffer;

export type DocumentRow = DocumentRowOf<number, string>;
export type VersionRow = VersionRowOf<number, string, StoredText>;
export type SnapshotRow = SnapshotRowOf<StoredText>;
export type ReceiptRow = ReceiptRowOf<string>;

/** Texts of fewer UTF-8 bytes stay TEXT: too few pages to save for the time deflating takes. */
const DEFLATE_FROM_BYTES = 4096;

export function encodeFullText(text: string): StoredText {
  if (text.length * 3 < DEFLATE_FROM_BYTES) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length < DEFLATE_FROM_BYTES) return text;
  // The fastest level: this runs inside the commit, and most of the gain is in the first level.
  const deflated = deflateRawSync(bytes, { level: constants.Z_BEST_SPEED });
  return deflated.length < bytes.length ? deflated : text;
}

export function decodeFullText(stored: StoredText): string {
  return typeof stored === "string" ? stored : inflateRawSync(stored).toString("utf8");
}


export function toSnapshot(row: SnapshotRow): Snapshot {
  return { version: row.version, text: decodeFullText(row.text) };
}




export function toDocument(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    title: row.title,
    version: row.version,
    deleted: row.deleted === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    checksum: row.checksum,
  };
}

export function toVersion(row: VersionRow): VersionRecord {
  const record: VersionRecord = {
    documentId: row.document_id,
    version: row.version,
    changeType: row.change_type,
    milestone: row.milestone === 1,
    createdAt: row.created_at,
    title: row.title,
    ops: row.ops === null ? null : (JSON.parse(row.ops) as NormalizedOp[]),
    checksum: row.checksum,
    text: row.text === null ? null : decodeFullText(row.text),
  };
  if (row.client_id !== null) record.clientId = row.client_id;
  if (row.display_name !== null) record.displayName = row.display_name;
  return record;
}

/** A version row read without its text column. */
export type VersionSummaryRow = Omit<VersionRow, "text">;

/** A version row read without its ops and text, with the ops' size. */
export function toVersionHead(row: VersionRow, opsBytes: number | null): VersionHead {
  const { ops: _ops, text: _text, ...head } = toVersion(row);
  return { ...head, opsBytes };
}

/** A milestone row read without its ops. */
export function toMilestone(row: VersionRow): MilestoneRecord {
  const { ops: _ops, ...milestone } = toVersion(row);
  return milestone;
}

export function toVersionSummary(row: VersionSummaryRow): VersionSummary {
  const { text: _text, ...summary } = toVersion({ ...row, text: null });
  return summary;
}

export function toReceipt(row: ReceiptRow): PatchReceipt {
  return receiptOf(row, row.client_id);
}
