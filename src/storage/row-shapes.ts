import type { ChangeType } from "../core/change-types.js";

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

export interface ReceiptRowOf<Str> {
  document_id: string;
  client_id: Str;
  seq: number;
  request_hash: string;
  version: number;
  ops_since_base: string;
  created_at: number;
}
