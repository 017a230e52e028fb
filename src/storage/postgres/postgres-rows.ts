import pg from "pg";
import type { NormalizedOp } from "../../core/normalized-op.js";
import { receiptOf, storedOps, type DocumentRowOf, type ReceiptRowOf, type SnapshotRowOf, type VersionRowOf } from "../row-shapes.js";
import type { DocumentRecord, PatchReceipt, Snapshot, VersionRecord } from "../store.js";

// Free-form strings (titles, texts, clientId, displayName) may hold U+0000, which PostgreSQL `text`
// rejects; they are stored as their UTF-8 bytes in `bytea`, which round-trips every well-formed string.
// Ops are JSON text: JSON.stringify escapes U+0000 as \u0000, which `text` holds (and `jsonb` would not).

export const encodeText = (value: string): Buffer => Buffer.from(value, "utf8");
export const decodeText = (bytes: Buffer): string => bytes.toString("utf8");
const encodeOptional = (value: string | undefined): Buffer | null => (value === undefined ? null : encodeText(value));

const INT8_OID = 20;

/** Type parsers for one pool: bigint columns (versions, epoch ms, counts) become JS numbers. */
export function createTypeParsers(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8_OID, (value: string) => {
    const number = Number(value);
    if (!Number.isSafeInteger(number)) throw new RangeError(`bigint ${value} is beyond Number.MAX_SAFE_INTEGER`);
    return number;
  });
  return types;
}

export const DOCUMENT_COLUMNS = "id, title, version, deleted, created_at, updated_at, checksum";
export const VERSION_COLUMNS =
  "document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum, text";
/** The same row with its text left unread (a NULL in its place). */
export const VERSION_SUMMARY_COLUMNS =
  "document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum, NULL::bytea AS text";
/** A version's row with neither ops nor text read, and the ops' size (octet_length reads no TOASTed value). */
export const VERSION_HEAD_COLUMNS =
  "document_id, version, change_type, milestone, created_at, client_id, display_name, title, NULL::text AS ops, checksum, NULL::bytea AS text, octet_length(ops) AS ops_bytes";
/** A milestone's row with its ops left unread: the history needs its text only. */
export const MILESTONE_COLUMNS =
  "document_id, version, change_type, milestone, created_at, client_id, display_name, title, NULL::text AS ops, checksum, text";
export const RECEIPT_COLUMNS = "document_id, client_id, seq, request_hash, version, ops_since_base, created_at, shifted_base, shifted_through";

export type DocumentRow = DocumentRowOf<boolean, Buffer>;
export type VersionRow = VersionRowOf<boolean, Buffer, Buffer>;
export type SnapshotRow = SnapshotRowOf<Buffer>;
export type ReceiptRow = ReceiptRowOf<Buffer>;

export function documentFromRow(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    title: decodeText(row.title),
    version: row.version,
    deleted: row.deleted,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    checksum: row.checksum,
  };
}

export function documentParams(document: DocumentRecord): unknown[] {
  return [
    document.id,
    encodeText(document.title),
    document.version,
    document.deleted,
    document.createdAt,
    document.updatedAt,
    document.checksum,
  ];
}

export function versionFromRow(row: VersionRow): VersionRecord {
  const record: VersionRecord = {
    documentId: row.document_id,
    version: row.version,
    changeType: row.change_type,
    milestone: row.milestone,
    createdAt: row.created_at,
    title: decodeText(row.title),
    ops: row.ops === null ? null : (JSON.parse(row.ops) as NormalizedOp[]),
    checksum: row.checksum,
    text: row.text === null ? null : decodeText(row.text),
  };
  // Optional fields stay absent rather than undefined, so records compare equal across stores.
  if (row.client_id !== null) record.clientId = decodeText(row.client_id);
  if (row.display_name !== null) record.displayName = decodeText(row.display_name);
  return record;
}

export function versionParams(version: VersionRecord): unknown[] {
  return [
    version.documentId,
    version.version,
    version.changeType,
    version.milestone,
    version.createdAt,
    encodeOptional(version.clientId),
    encodeOptional(version.displayName),
    encodeText(version.title),
    version.ops === null ? null : JSON.stringify(version.ops),
    version.checksum,
    version.text === null ? null : encodeText(version.text),
  ];
}

export function snapshotFromRow(row: SnapshotRow): Snapshot {
  return { version: row.version, text: decodeText(row.text) };
}

export function receiptFromRow(row: ReceiptRow): PatchReceipt {
  return receiptOf(row, decodeText(row.client_id));
}

export function receiptParams(receipt: PatchReceipt): unknown[] {
  return [
    receipt.documentId,
    encodeText(receipt.clientId),
    receipt.seq,
    receipt.requestHash,
    receipt.version,
    storedOps(receipt),
    receipt.createdAt,
    receipt.shiftedOver?.base ?? null,
    receipt.shiftedOver?.through ?? null,
  ];
}

/** The parameters of one statement, each numbered `$n` as it is added. */
export class StatementParams {
  readonly values: unknown[] = [];

  /** A placeholder for `value`. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** `($1, $2, …), ($n, …)` for a multi-row VALUES list. */
  rows(rows: readonly (readonly unknown[])[]): string {
    return rows.map((row) => `(${row.map((value) => this.add(value)).join(", ")})`).join(", ");
  }
}
