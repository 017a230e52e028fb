import type { DocumentRecord, DocumentTransaction, PatchReceipt, ReceiptKey, Snapshot, VersionRecord, VersionSummary } from "../store.js";
import { COMMIT_CHANNEL } from "./commit-notifier.js";
import {
  DOCUMENT_COLUMNS,
  RECEIPT_COLUMNS,
  VERSION_COLUMNS,
  StatementParams,
  documentParams,
  encodeText,
  receiptParams,
  versionParams,
} from "./pg-codec.js";
import { PostgresReader, type Queryable } from "./postgres-reader.js";

// Rows per INSERT and bind parameters per statement, well below PostgreSQL's 65,535 (a version
// row takes 11, a receipt 7).
const ROWS_PER_INSERT = 1000;
const PARAMS_PER_STATEMENT = 30_000;

/** One data-modifying statement of the flush, written as the body of a WITH item. */
interface WritePart {
  /** Its bind parameters, for packing parts into statements. */
  size: number;
  /** Whether it returns a row per row it changed, to be counted (a milestone mark). */
  counted: boolean;
  sql: (params: StatementParams) => string;
}

/**
 * One document's view inside an open PostgreSQL transaction that holds the document's row lock.
 * Writes are staged in memory; {@link PostgresTransaction.flush} sends them together with the
 * commit notice, as one statement of data-modifying WITH items in the usual case, since every
 * round trip to the database is time the document stays locked.
 */
export class PostgresTransaction implements DocumentTransaction {
  private readonly reader: PostgresReader;
  // A head row and a snapshot are whole-row replacements: only the last one staged matters.
  private stagedDocument: DocumentRecord | undefined;
  private stagedSnapshot: Snapshot | undefined;
  private readonly stagedVersions: VersionRecord[] = [];
  /** Milestone marks on versions committed before this transaction (marks on staged ones are applied to them). */
  private readonly marks = new Map<number, string>();
  private readonly stagedReceipts: PatchReceipt[] = [];
  private failure: Error | undefined;
  private sealed = false;

  /** @param head the document row as read under its lock */
  constructor(
    private readonly client: Queryable,
    private readonly documentId: string,
    private readonly head: DocumentRecord | undefined,
  ) {
    this.reader = new PostgresReader(client);
  }

  document(): Promise<DocumentRecord | undefined> {
    return Promise.resolve(this.head && { ...this.head });
  }

  snapshot(): Promise<Snapshot | undefined> {
    return this.reader.snapshot(this.documentId);
  }

  versions(after: number, upTo: number): Promise<VersionSummary[]> {
    return this.reader.versions(this.documentId, after, upTo);
  }

  version(version: number): Promise<VersionRecord | undefined> {
    return this.reader.version(this.documentId, version);
  }

  fullTextAtOrBefore(version: number): Promise<Snapshot | undefined> {
    return this.reader.fullTextAtOrBefore(this.documentId, version);
  }

  receipt(clientId: string, seq: number): Promise<PatchReceipt | undefined> {
    return this.reader.receipt(this.documentId, clientId, seq);
  }

  receipts(keys: readonly ReceiptKey[]): Promise<PatchReceipt[]> {
    return this.reader.receipts(this.documentId, keys);
  }

  putDocument(document: DocumentRecord): void {
    this.checkOpen();
    this.checkOwn(document.id, "putDocument");
    this.stagedDocument = { ...document };
  }

  appendVersion(version: VersionRecord): void {
    this.checkOpen();
    this.checkOwn(version.documentId, "appendVersion");
    // Staged versions must follow each other here; that the first follows the stored head is
    // checked by the flush, in the statement that inserts it.
    const last = this.stagedVersions.at(-1);
    if (last && version.version !== last.version + 1) {
      // Remembered as well as thrown: work that swallows the error must not commit a gap or a duplicate.
      this.failure = new Error(
        `appendVersion(${version.version}) on document ${this.documentId}: the next version is ${last.version + 1}`,
      );
      throw this.failure;
    }
    this.stagedVersions.push({ ...version });
  }

  markMilestone(version: number, text: string): void {
    this.checkOpen();
    const staged = this.stagedVersions.find((record) => record.version === version);
    if (staged) {
      staged.milestone = true;
      staged.text = text;
    } else {
      this.marks.set(version, text);
    }
  }

  putSnapshot(snapshot: Snapshot): void {
    this.checkOpen();
    this.stagedSnapshot = { ...snapshot };
  }

  putReceipt(receipt: PatchReceipt): void {
    this.checkOpen();
    this.checkOwn(receipt.documentId, "putReceipt");
    this.stagedReceipts.push({ ...receipt });
  }

  /**
   * Writes what was staged and seals the transaction. When a version was appended, the commit
   * notice `announce(head)` goes out in the same statement (PostgreSQL delivers it only if the
   * transaction commits) and the head version is returned; otherwise `undefined`: a snapshot, a
   * receipt or a milestone mark alone gives a feed nothing new.
   */
  async flush(announce: (headVersion: number) => string): Promise<number | undefined> {
    this.seal();
    if (this.failure) throw this.failure;
    const first = this.stagedVersions[0];
    const headVersion = first && (this.stagedDocument?.version ?? this.stagedVersions.at(-1)!.version);
    const statements = packStatements(this.parts());
    let marked = 0;
    for (const [index, parts] of statements.entries()) {
      const params = new StatementParams();
      const items = parts.map((part, item) => `w${item} AS (${part.sql(params)})`);
      const counts = parts.flatMap((part, item) => (part.counted ? [`(SELECT count(*) FROM w${item})`] : []));
      const columns = [`${counts.join(" + ") || "0"} AS marked`];
      // Every statement of a transaction sees the commits made before it, never its own WITH items:
      // the first statement reads the stored head as it was before this flush.
      if (index === 0 && first) {
        columns.push(`(SELECT coalesce(max(version), 0) FROM versions WHERE document_id = ${params.add(this.documentId)}) AS stored_head`);
      }
      if (index === statements.length - 1 && headVersion !== undefined) {
        columns.push(`pg_notify(${params.add(COMMIT_CHANNEL)}, ${params.add(announce(headVersion))}) AS notified`);
      }
      const { rows } = await this.client.query<{ marked: number; stored_head?: number }>(
        `WITH ${items.join(", ")} SELECT ${columns.join(", ")}`,
        params.values,
      );
      const row = rows[0]!;
      marked += row.marked;
      if (first && row.stored_head !== undefined && row.stored_head !== first.version - 1) {
        throw new Error(`appendVersion(${first.version}) on document ${this.documentId}: the next version is ${row.stored_head + 1}`);
      }
    }
    if (marked !== this.marks.size) {
      const missing = [...this.marks.keys()].join(", ");
      throw new Error(`markMilestone(${missing}) on document ${this.documentId}: ${this.marks.size - marked} of these versions do not exist`);
    }
    return headVersion;
  }

  /** Refuses any further staging, e.g. from a promise the work function left running. */
  seal(): void {
    this.sealed = true;
  }

  private parts(): WritePart[] {
    const parts: WritePart[] = [];
    const document = this.stagedDocument;
    if (document) {
      parts.push({
        size: 7,
        counted: false,
        sql: (params) => `INSERT INTO documents (${DOCUMENT_COLUMNS}) VALUES ${params.rows([documentParams(document)])}
           ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, version = EXCLUDED.version,
             deleted = EXCLUDED.deleted, created_at = EXCLUDED.created_at,
             updated_at = EXCLUDED.updated_at, checksum = EXCLUDED.checksum`,
      });
    }
    for (const rows of chunks(this.stagedVersions.map(versionParams))) {
      parts.push({ size: 11 * rows.length, counted: false, sql: (params) => `INSERT INTO versions (${VERSION_COLUMNS}) VALUES ${params.rows(rows)}` });
    }
    for (const [version, text] of this.marks) {
      parts.push({
        size: 3,
        counted: true,
        sql: (params) =>
          `UPDATE versions SET milestone = true, text = ${params.add(encodeText(text))}
            WHERE document_id = ${params.add(this.documentId)} AND version = ${params.add(version)} RETURNING version`,
      });
    }
    const snapshot = this.stagedSnapshot;
    if (snapshot) {
      parts.push({
        size: 3,
        counted: false,
        sql: (params) => `INSERT INTO snapshots (document_id, version, text)
           VALUES (${params.add(this.documentId)}, ${params.add(snapshot.version)}, ${params.add(encodeText(snapshot.text))})
           ON CONFLICT (document_id) DO UPDATE SET version = EXCLUDED.version, text = EXCLUDED.text`,
      });
    }
    for (const rows of chunks(this.stagedReceipts.map(receiptParams))) {
      parts.push({ size: 7 * rows.length, counted: false, sql: (params) => `INSERT INTO patch_receipts (${RECEIPT_COLUMNS}) VALUES ${params.rows(rows)}` });
    }
    return parts;
  }

  private checkOpen(): void {
    if (this.sealed) throw new Error(`the write transaction of document ${this.documentId} is over`);
  }

  private checkOwn(documentId: string, method: string): void {
    if (documentId.toLowerCase() !== this.documentId.toLowerCase()) {
      throw new Error(`${method} for document ${documentId} inside the write of document ${this.documentId}`);
    }
  }
}

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += ROWS_PER_INSERT) result.push(items.slice(start, start + ROWS_PER_INSERT));
  return result;
}

/** The parts in order, packed into as few statements as the parameter bound allows. */
function packStatements(parts: readonly WritePart[]): WritePart[][] {
  const statements: WritePart[][] = [];
  let size = 0;
  for (const part of parts) {
    const current = statements.at(-1);
    if (current && size + part.size <= PARAMS_PER_STATEMENT) {
      current.push(part);
      size += part.size;
    } else {
      statements.push([part]);
      size = part.size;
    }
  }
  return statements;
}
