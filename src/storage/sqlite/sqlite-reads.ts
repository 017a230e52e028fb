import type { DocumentReads, DocumentRecord, MilestoneRecord, PatchReceipt, VersionHead, ReceiptKey, Snapshot, VersionRecord, VersionSummary } from "../store.js";
import { StorageUnavailableError } from "../store.js";
import type { Statements } from "./sqlite-statements.js";
import { toDocument, toMilestone, toVersionHead, toReceipt, toSnapshot, toVersion, toVersionSummary } from "./sqlite-rows.js";

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
  /**
   * @param durable the flush of the WAL under way, if any: a read outside a write settles after it
   *   ({@link durableRead}), so that it never returns a commit that is not yet on disk. A write's own
   *   reads pass `undefined`: what they build on is acknowledged only after a later flush.
   */
  constructor(
    private readonly sql: Statements,
    private readonly id: string,
    private readonly durable?: () => Promise<void> | undefined,
  ) {}

  document = (): Promise<DocumentRecord | undefined> => this.read(() => readDocument(this.sql, this.id));
  snapshot = (): Promise<Snapshot | undefined> => this.read(() => readSnapshot(this.sql, this.id));
  versions = (after: number, upTo: number): Promise<VersionSummary[]> => this.read(() => this.sql.versions.all(this.id, after, upTo).map(toVersionSummary));
  version = (version: number): Promise<VersionRecord | undefined> => this.read(() => readVersion(this.sql, this.id, version));
  versionHeads = (after: number, upTo: number): Promise<VersionHead[]> =>
    this.read(() => this.sql.versionHeads.all(this.id, after, upTo).map((row) => toVersionHead(row, row.ops_bytes)));
  milestones = (after = 0, limit = -1): Promise<MilestoneRecord[]> => this.read(() => this.sql.milestones.all(this.id, after, limit).map(toMilestone));
  fullTextAtOrBefore = (version: number): Promise<Snapshot | undefined> => this.read(() => readFullText(this.sql, this.id, version));
  receipt = (clientId: string, seq: number): Promise<PatchReceipt | undefined> => this.read(() => readReceipt(this.sql, this.id, clientId, seq));
  // One indexed lookup per key: a SQLite statement is a function call, not a round trip.
  receipts = (keys: readonly ReceiptKey[]): Promise<PatchReceipt[]> =>
    this.read(() => keys.flatMap(({ clientId, seq }) => readReceipt(this.sql, this.id, clientId, seq) ?? []));

  private read<T>(statement: () => T): Promise<T> {
    return durableRead(statement, this.durable);
  }
}

/**
 * Runs a read statement and settles once everything it may have seen is on disk (wal-sync.ts):
 * every commit it saw has asked for a flush already, and the flush under way right after the
 * statement (the queued one, else the running one) covers them all, so a read waits for at most
 * that one. Waiting before the statement would not do: a commit made during the wait would be read
 * before its own flush. A failed flush fails the writes (the store stops acknowledging); reads go
 * on with what the file holds.
 */
export async function durableRead<T>(statement: () => T, flushing: (() => Promise<void> | undefined) | undefined): Promise<T> {
  let value: T;
  try {
    value = statement();
  } catch (error) {
    throw unavailable(error);
  }
  await flushing?.()?.catch(() => undefined);
  return value;
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
