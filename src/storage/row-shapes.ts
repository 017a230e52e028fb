import type { ChangeType } from "../core/change-types.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import type { PatchReceipt } from "./store.js";

// The tables' rows as the drivers return them, written once for both adapters. Each adapter says
// how it stores a boolean (`Bool`: SQLite 0/1, PostgreSQL boolean), a free-form string (`Str`:
// SQLite TEXT, PostgreSQL UTF-8 bytea so that U+0000 survives) and a full text (`FullText`: SQLite
// TEXT or deflated BLOB, PostgreSQL bytea).

export interface DocumentRowOf<Bool, Str> {
  id: string;
  title: Str;
  version: number;
  deleted: Bool;
  created_at: number;
  updated_at: number;
  checksum: string;
}

export interface VersionRowOf<Bool, Str, FullText> {
  document_id: string;
  version: number;
  change_type: ChangeType;
  milestone: Bool;
  created_at: number;
  client_id: Str | null;
  display_name: Str | null;
  title: Str;
  ops: string | null;
  checksum: string;
  text: FullText | null;
}

export interface SnapshotRowOf<FullText> {
  version: number;
  text: FullText;
}

/** A receipt's ops as both adapters store them: JSON, or empty when the receipt refers to the versions it was shifted over. */
export function storedOps(receipt: PatchReceipt): string {
  if (receipt.shiftedOver) return "";
  if (!receipt.opsSinceBase) throw new Error(`the receipt of seq ${receipt.seq} of client ${receipt.clientId} has neither its ops nor the versions it was shifted over`);
  return JSON.stringify(receipt.opsSinceBase);
}

/** A receipt read back from its row (the adapter decodes the client id). */
export function receiptOf(row: ReceiptRowOf<unknown>, clientId: string): PatchReceipt {
  const receipt: PatchReceipt = {
    documentId: row.document_id,
    clientId,
    seq: row.seq,
    requestHash: row.request_hash,
    version: row.version,
    createdAt: row.created_at,
  };
  if (row.shifted_base !== null && row.shifted_through !== null) receipt.shiftedOver = { base: row.shifted_base, through: row.shifted_through };
  else receipt.opsSinceBase = JSON.parse(row.ops_since_base) as NormalizedOp[];
  return receipt;
}

export interface ReceiptRowOf<Str> {
  document_id: string;
  client_id: Str;
  seq: number;
  request_hash: string;
  version: number;
  /** The answer's ops as JSON; empty when `shifted_base` is set (the versions it refers to hold them). */
  ops_since_base: string;
  created_at: number;
  shifted_base: number | null;
  shifted_through: number | null;
}
