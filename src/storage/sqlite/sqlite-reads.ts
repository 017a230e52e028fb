import type { DocumentReads, DocumentRecord, PatchReceipt, ReceiptKey, Snapshot, VersionRecord, VersionSummary } from "../store.js";
import { StorageUnavailableError } from "../store.js";
import type { Statements } from "./sqlite-statements.js";
import { toDocument, toReceipt, toSnapshot, toVersion, toVersionSummary } from "./sqlite-rows.js";

// Result codes that say the file cannot serve now (another process's lock outlasted the wait, the
// disk is full or failing), not that the request or the code is wrong.
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/;

export function unavailable(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNAVAILABLE.test(code)) {
    return new StorageUnavailableError(`the SQLite database cannot serve now (${code})`, { cause: error });
  }
  return error;
}

/** Runs a synchronous statement, reporting the file's unavailability as such. */
export async function run<T>(statement: () => T): Promise<T> {
  try {
    return statement();
  } catch (error) {
    throw unavailable(error);
  }
}

/** The reads of one document, for the store and for a write transaction alike. */
export class SqliteReads implements DocumentReads {
  constructor(
    private readonly sql: Statements,
    private readonly id: string,
  ) {}

  document = (): Promise<DocumentRecord | undefined> => run(() => readDocument(this.sql, this.id));
  snapshot = (): Promise<Snapshot | undefined> => run(() => readSnapshot(this.sql, this.id));
  versions = (after: number, upTo: number): Promise<VersionSummary[]> => run(() => this.sql.versions.all(this.id, after, upTo).map(toVersionSummary));
  version = (version: number): Promise<VersionRecord | undefined> => run(() => readVersion(this.sql, this.id, version));
  milestones = (): Promise<VersionRecord[]> => run(() => this.sql.milestones.all(this.id).map(toVersion));
  fullTextAtOrBefore = (version: number): Promise<Snapshot | undefined> => run(() => readFullText(this.sql, this.id, version));
  receipt = (clientId: string, seq: number): Promise<PatchReceipt | undefined> => run(() => readReceipt(this.sql, this.id, clientId, seq));
  // One indexed lookup per key: a SQLite statement is a function call, not a round trip.
  receipts = (keys: readonly ReceiptKey[]): Promise<PatchReceipt[]> =>
    run(() => keys.flatMap(({ clientId, seq }) => readReceipt(this.sql, this.id, clientId, seq) ?? []));
}

function readDocument(sql: Statements, id: string): DocumentRecord | undefined {
  const row = sql.document.get(id);
  return row && toDocument(row);
}

function readVersion(sql: Statements, id: string, version: number): VersionRecord | undefined {
  const row = sql.version.get(id, version);
  return row && toVersion(row);
}

function readReceipt(sql: Statements, id: string, clientId: string, seq: number): PatchReceipt | undefined {
  const row = sql.receipt.get(id, clientId, seq);
  return row && toReceipt(row);
}

function readFullText(sql: Statements, id: string, version: number): Snapshot | undefined {
  const milestone = sql.milestoneTextAtOrBefore.get(id, version);
  const snapshot = sql.snapshot.get(id);
  const usableSnapshot = snapshot && snapshot.version <= version ? snapshot : undefined;
  const newest = milestone && usableSnapshot ? (milestone.version >= usableSnapshot.version ? milestone : usableSnapshot) : (milestone ?? usableSnapshot);
  return newest && toSnapshot(newest);
}

function readSnapshot(sql: Statements, id: string): Snapshot | undefined {
  const row = sql.snapshot.get(id);
  return row && toSnapshot(row);
}
