import type { NormalizedOp } from "../../core/normalized-op.js";
import type { ChangeType, DocumentRecord, PatchReceipt, VersionRecord, VersionSummary } from "../store.js";

export interface DocumentRow {
  id: string;
  title: string;
  version: number;
  deleted: number;
  created_at: number;
  updated_at: number;
  checksum: string;
}

export interface VersionRow {
  document_id: string;
  version: number;
  change_type: string;
  milestone: number;
  created_at: number;
  client_id: string | null;
  display_name: string | null;
  title: string;
  ops: string | null;
  checksum: string;
  text: string | null;
}

export interface ReceiptRow {
  document_id: string;
  client_id: string;
  seq: number;
  request_hash: string;
  version: number;
  ops_since_base: string;
  created_at: number;
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
    changeType: row.change_type as ChangeType,
    milestone: row.milestone === 1,
    createdAt: row.created_at,
    title: row.title,
    ops: row.ops === null ? null : (JSON.parse(row.ops) as NormalizedOp[]),
    checksum: row.checksum,
    text: row.text,
  };
  if (row.client_id !== null) record.clientId = row.client_id;
  if (row.display_name !== null) record.displayName = row.display_name;
  return record;
}

/** A version row read without its text column. */
export type VersionSummaryRow = Omit<VersionRow, "text">;

export function toVersionSummary(row: VersionSummaryRow): VersionSummary {
  const { text: _text, ...summary } = toVersion({ ...row, text: null });
  return summary;
}

export function toReceipt(row: ReceiptRow): PatchReceipt {
  return {
    documentId: row.document_id,
    clientId: row.client_id,
    seq: row.seq,
    requestHash: row.request_hash,
    version: row.version,
    opsSinceBase: JSON.parse(row.ops_since_base) as NormalizedOp[],
    createdAt: row.created_at,
  };
}
