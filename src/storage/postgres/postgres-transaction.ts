import type { DocumentRecord, DocumentTransaction, PatchReceipt, Snapshot, VersionRecord, VersionSummary } from "../store.js";
import {
  DOCUMENT_COLUMNS,
  RECEIPT_COLUMNS,
  VERSION_COLUMNS,
  documentParams,
  encodeText,
  receiptParams,
  valuesList,
  versionParams,
} from "./pg-codec.js";
import { PostgresReader, type Queryable } from "./postgres-reader.js";

type StagedWrite =
  | { kind: "document"; document: DocumentRecord }
  | { kind: "versions"; versions: VersionRecord[] }
  | { kind: "milestone"; version: number; text: string }
  | { kind: "snapshot"; snapshot: Snapshot }
  | { kind: "receipts"; receipts: PatchReceipt[] };

// Keeps a multi-row INSERT well below PostgreSQL's 65,535 bind parameters (11 per version row).
const ROWS_PER_INSERT = 1000;

/**
 * One document's view inside an open PostgreSQL transaction that holds the document's row lock.
 * Writes are staged in memory and executed in order by {@link PostgresTransaction.flush}.
 */
export class PostgresTransaction implements DocumentTransaction {
  private readonly reader: PostgresReader;
  private readonly staged: StagedWrite[] = [];
  private nextVersion: number;
  private lastStagedVersion: number | undefined;
  private failure: Error | undefined;
  private sealed = false;

  /**
   * @param head the document row as read under its lock
   * @param storedHead the newest version stored, read after the lock was taken
   */
  constructor(
    private readonly client: Queryable,
    private readonly documentId: string,
    private readonly head: DocumentRecord | undefined,
    storedHead: number,
  ) {
    this.reader = new PostgresReader(client);
    this.nextVersion = storedHead + 1;
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

  putDocument(document: DocumentRecord): void {
    this.checkOwn(document.id, "putDocument");
    this.stage({ kind: "document", document: { ...document } });
  }

  appendVersion(version: VersionRecord): void {
    this.checkOpen();
    this.checkOwn(version.documentId, "appendVersion");
    if (version.version !== this.nextVersion) {
      // Remembered as well as thrown: work that swallows the error must not commit a gap or a duplicate.
      this.failure = new Error(
        `appendVersion(${version.version}) on document ${this.documentId}: the next version is ${this.nextVersion}`,
      );
      throw this.failure;
    }
    this.nextVersion += 1;
    this.lastStagedVersion = version.version;
    const last = this.staged.at(-1);
    if (last?.kind === "versions" && last.versions.length < ROWS_PER_INSERT) last.versions.push({ ...version });
    else this.stage({ kind: "versions", versions: [{ ...version }] });
  }

  markMilestone(version: number, text: string): void {
    this.stage({ kind: "milestone", version, text });
  }

  putSnapshot(snapshot: Snapshot): void {
    this.stage({ kind: "snapshot", snapshot: { ...snapshot } });
  }

  putReceipt(receipt: PatchReceipt): void {
    this.checkOpen();
    this.checkOwn(receipt.documentId, "putReceipt");
    const last = this.staged.at(-1);
    if (last?.kind === "receipts" && last.receipts.length < ROWS_PER_INSERT) last.receipts.push({ ...receipt });
    else this.stage({ kind: "receipts", receipts: [{ ...receipt }] });
  }

  /**
   * Executes the staged writes in order and seals the transaction. Returns the head version to
   * announce when a version was appended; otherwise `undefined`: a snapshot, a receipt or a
   * milestone mark alone gives a feed nothing new, and a notice would only make waiters re-read.
   */
  async flush(): Promise<number | undefined> {
    this.seal();
    if (this.failure) throw this.failure;
    let headVersion = this.lastStagedVersion ?? this.head?.version ?? 0;
    for (const write of this.staged) {
      if (write.kind === "document") headVersion = write.document.version;
      await this.execute(write);
    }
    return this.lastStagedVersion === undefined ? undefined : headVersion;
  }

  /** Refuses any further staging, e.g. from a promise the work function left running. */
  seal(): void {
    this.sealed = true;
  }

  private async execute(write: StagedWrite): Promise<void> {
    switch (write.kind) {
      case "document":
        await this.client.query(
          `INSERT INTO documents (${DOCUMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, version = EXCLUDED.version,
             deleted = EXCLUDED.deleted, created_at = EXCLUDED.created_at,
             updated_at = EXCLUDED.updated_at, checksum = EXCLUDED.checksum`,
          documentParams(write.document),
        );
        return;
      case "versions": {
        const { sql, params } = valuesList(write.versions.map(versionParams));
        await this.client.query(`INSERT INTO versions (${VERSION_COLUMNS}) VALUES ${sql}`, params);
        return;
      }
      case "milestone": {
        const result = await this.client.query(
          `UPDATE versions SET milestone = true, text = $3 WHERE document_id = $1 AND version = $2`,
          [this.documentId, write.version, encodeText(write.text)],
        );
        if (result.rowCount !== 1) {
          throw new Error(`markMilestone(${write.version}) on document ${this.documentId}: no such version`);
        }
        return;
      }
      case "snapshot":
        await this.client.query(
          `INSERT INTO snapshots (document_id, version, text) VALUES ($1, $2, $3)
           ON CONFLICT (document_id) DO UPDATE SET version = EXCLUDED.version, text = EXCLUDED.text`,
          [this.documentId, write.snapshot.version, encodeText(write.snapshot.text)],
        );
        return;
      case "receipts": {
        const { sql, params } = valuesList(write.receipts.map(receiptParams));
        await this.client.query(`INSERT INTO patch_receipts (${RECEIPT_COLUMNS}) VALUES ${sql}`, params);
        return;
      }
    }
  }

  private stage(write: StagedWrite): void {
    this.checkOpen();
    this.staged.push(write);
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
