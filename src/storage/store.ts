import type { NormalizedOp } from "../core/normalized-op.js";
import type { ReadLinkStore } from "./read-links.js";

/**
 * The store cannot serve now for a reason outside the request: the database is unreachable, a
 * lock held elsewhere outlasted the wait, the disk is full. Adapters raise it; the HTTP layer
 * answers 503 with `Retry-After`, so clients and load balancers retry instead of giving up.
 */
export class StorageUnavailableError extends Error {
  override readonly name = "StorageUnavailableError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The store's file is served by another process; this one must not start (one process per SQLite
 * file). The message names the file.
 */
export class StorageInUseError extends Error {
  override readonly name = "StorageInUseError";
}

/** The store's files cannot be created, read or written by this process; the message names the path and the user. */
export class StorageUnusableError extends Error {
  override readonly name = "StorageUnusableError";
}

import type { ChangeType } from "../core/change-types.js";

/** The kinds of change a version records (the list is in core/change-types.ts). */
export type { ChangeType };

/** The head of a document: one row per document, deleted ones included. Times are epoch milliseconds. */
export interface DocumentRecord {
  id: string;
  title: string;
  /** The newest version; versions are dense from 1 to this. */
  version: number;
  deleted: boolean;
  createdAt: number;
  updatedAt: number;
  /** `sha256:<hex>` of the head text. */
  checksum: string;
}

/** One version of a document, as recorded when the change was committed. */
export interface VersionRecord {
  documentId: string;
  version: number;
  changeType: ChangeType;
  milestone: boolean;
  createdAt: number;
  clientId?: string;
  displayName?: string;
  /** The title after this change. */
  title: string;
  /** The line ops from the previous version's text (from the empty text for version 1); `null` once compacted. */
  ops: NormalizedOp[] | null;
  /** `sha256:<hex>` of the text at this version; kept after compaction. */
  checksum: string;
  /** The full text at this version where it is kept (milestones, the deletion record); otherwise `null`. */
  text: string | null;
}

/** A version without its full text: what range reads return (the feed and text rebuilds need only ops). */
export type VersionSummary = Omit<VersionRecord, "text">;

/**
 * A version without its ops or text, with the size of its stored ops: what a read needs to weigh
 * the versions it would compose before it reads them, and the feed's events.
 */
export type VersionHead = Omit<VersionRecord, "ops" | "text"> & {
  /** The UTF-8 bytes of the version's stored ops (their JSON); `null` once compacted. */
  opsBytes: number | null;
};

/** A milestone without its ops: what the history shows (a whole text's ops are as large as the text). */
export type MilestoneRecord = Omit<VersionRecord, "ops">;

/** The latest full text of a document kept beside the ops, so the head is rebuilt from a few ops. */
export interface Snapshot {
  version: number;
  text: string;
}

/** The stored outcome of an accepted content patch, keyed by (document, clientId, seq). */
export interface PatchReceipt {
  documentId: string;
  clientId: string;
  seq: number;
  /** A digest of the request body, to tell a true repeat from a reused `seq`. */
  requestHash: string;
  version: number;
  /**
   * The answer's opsSinceBase. A receipt read back from a store lacks it when it has
   * {@link shiftedOver}: the store then kept only where to compose it again.
   */
  opsSinceBase?: NormalizedOp[];
  /**
   * The versions in `(base, through]` the patch was shifted over: its opsSinceBase is the patch's
   * rebase over their composed ops. When set, the store keeps this instead of the ops, and
   * compaction keeps those versions' ops while the receipt lives (docs/architecture.md, "Receipts").
   */
  shiftedOver?: ShiftedOver;
  createdAt: number;
}

/** The versions a receipt's patch was shifted over: `(base, through]`. */
export interface ShiftedOver {
  base: number;
  through: number;
}

/** The key of a patch receipt within its document. */
export interface ReceiptKey {
  clientId: string;
  seq: number;
}

/** A receipt key as one string, for maps: the seq first (it has no U+0000, so the first one ends it and no two keys share a string). */
export const receiptKeyString = (key: ReceiptKey): string => `${key.seq}\u0000${key.clientId}`;

/** What a write's work reads first, for the store to read with the document's lock (see {@link Store.write}). */
export interface ReadAhead {
  receipts?: readonly ReceiptKey[];
}

/** The global lock of the protected document list. */
export interface ListLockState {
  /** Consecutive failed attempts since the last success or lock. */
  failures: number;
  /** Epoch ms until which the list is (or last was) locked; 0 when it never was. Locked while it lies ahead of now. */
  lockedUntil: number;
}

/** The list lock's state after {@link Store.recordListFailure}, and whether that failure was counted. */
export interface ListFailureState extends ListLockState {
  /** False when the list was locked already: nothing changed. */
  counted: boolean;
}

/** What one compaction run removed. */
export interface CompactionResult {
  /** Sync versions whose ops were dropped. */
  versions: number;
  /** Patch receipts that were dropped. */
  receipts: number;
  /** False when another instance was compacting and this run did nothing. */
  ran: boolean;
}

/**
 * The reads of one document: what {@link Store.reads} hands out, and what a write transaction
 * offers too (there seeing the committed state as of the moment the exclusive section began).
 * An id that never existed reads as nothing: `undefined` or an empty list.
 */
export interface DocumentReads {
  /** The document's head, deleted ones included, or `undefined` when the id never existed. */
  document(): Promise<DocumentRecord | undefined>;
  /** The document's latest snapshot. */
  snapshot(): Promise<Snapshot | undefined>;
  /** Versions in `(after, upTo]`, oldest first, without their texts. */
  versions(after: number, upTo: number): Promise<VersionSummary[]>;
  /** Versions in `(after, upTo]`, oldest first, without their ops and texts but with the ops' size. */
  versionHeads(after: number, upTo: number): Promise<VersionHead[]>;
  /** One version, or `undefined`. */
  version(version: number): Promise<VersionRecord | undefined>;
  /** The milestones after version `after` (every one by default; at most `limit`), oldest first, without their ops. */
  milestones(after?: number, limit?: number): Promise<MilestoneRecord[]>;
  /** The newest full text at or before `version` (a milestone's text or the snapshot). */
  fullTextAtOrBefore(version: number): Promise<Snapshot | undefined>;
  /** The receipt of an accepted patch, or `undefined`. */
  receipt(clientId: string, seq: number): Promise<PatchReceipt | undefined>;
  /** The receipts that exist among `keys`, in any order: one read for a whole batch of patches. */
  receipts(keys: readonly ReceiptKey[]): Promise<PatchReceipt[]>;
}

/** The staged writes of one document inside {@link Store.write}: applied in order, all or nothing, when the work returns. */
export interface DocumentWrites {
  /** Inserts or replaces the head row. */
  putDocument(document: DocumentRecord): void;
  /** Appends a version; it must be the next one after every version already stored or staged. */
  appendVersion(version: VersionRecord): void;
  /** Turns an existing version into a milestone that keeps `text` as its full text. */
  markMilestone(version: number, text: string): void;
  /** Replaces the document's snapshot. */
  putSnapshot(snapshot: Snapshot): void;
  /** Stores the receipt of an accepted patch. */
  putReceipt(receipt: PatchReceipt): void;
}

/** The exclusive view of one document inside {@link Store.write}: its reads, and writes staged until the work returns. */
export interface DocumentTransaction extends DocumentReads, DocumentWrites {}

/** A commit seen by the store's notification source (possibly made by another instance). */
export interface CommitNotice {
  documentId: string;
  version: number;
}

/** Receives commit notices and the news that notices may have been lost. */
export interface CommitListener {
  /** A commit happened; a hint only: the store is the truth. */
  commit(notice: CommitNotice): void;
  /** Notices may have been missed (a lost connection): every waiter must re-read. */
  reset(): void;
}

/** Passes short messages among the instances of one database, nothing stored (PostgreSQL's NOTIFY). */
export interface InstanceRelay {
  /** Sends `message` (at most {@link RELAY_MESSAGE_BYTES}) to every other instance; fire and forget, a lost one is lost. */
  send(message: string): void;
  /** Hears the other instances' messages (never this store's own); returns how to stop. */
  watch(listener: (message: string) => void): () => void;
}

/** The largest relay message: PostgreSQL's NOTIFY payload is below 8,000 bytes. */
export const RELAY_MESSAGE_BYTES = 7_000;

/** What a store tells the metrics about itself. */
export interface StoreStats {
  kind: "sqlite" | "postgres";
  /** The notification connection, where the store has one (PostgreSQL's LISTEN). */
  listener?: { connected: boolean; reconnects: number };
}

/**
 * The persistence contract of the service. Every adapter (SQLite, PostgreSQL) passes the same
 * contract suite in `test/storage/store-contract.ts`.
 *
 * Concurrency is part of the contract: {@link Store.write} gives exclusive access to one document
 * across every caller of the store, including other service instances sharing the database, so
 * version numbers stay dense and are never reused; readers see versions in commit order.
 */
export interface Store {
  /** The reads of one document, outside any write. */
  reads(id: string): DocumentReads;
  /** Every existing (not deleted) document, oldest first (by creation time, then id). */
  listDocuments(): Promise<DocumentRecord[]>;

  /**
   * Runs `work` with exclusive write access to one document and commits what it staged, durably,
   * before the returned promise settles. When `work` throws, nothing it staged is written.
   * Inside `work`, read through `tx` only: the store's own reads may wait for a connection that
   * the exclusive section holds.
   * Work on different documents may run concurrently and may share one commit.
   * A store may run `work` again on a fresh transaction when a commit it shared with other
   * documents failed (PostgreSQL does, so that one document's failure fails only that document):
   * work must change nothing but through `tx`, and only its last run's result is returned.
   * `ahead.receipts` names receipts the work will read first: a store may read them together with
   * the document's lock, in the same round trip (the PostgreSQL store does).
   */
  write<T>(id: string, work: (tx: DocumentTransaction) => Promise<T>, ahead?: ReadAhead): Promise<T>;

  /**
   * Ids of documents holding sync versions created before `cutoff` that compaction cannot drop
   * yet because the snapshot is older than they are (the head still needs their ops).
   */
  documentsNeedingSnapshot(cutoff: number): Promise<string[]>;
  /**
   * Drops the ops of sync versions created before `cutoff` that are older than the document's
   * snapshot and not the head, and the receipts created before `cutoff`. Milestones, their texts
   * and the deletion record stay whole. At most one compaction runs at a time across instances.
   */
  compact(cutoff: number): Promise<CompactionResult>;

  /** The list lock's state. */
  getListLock(): Promise<ListLockState>;
  /**
   * Counts one failed attempt, atomically across instances: no effect while locked (`lockedUntil > now`,
   * `counted: false`); otherwise the count grows, and on reaching `maxFailures` the list locks until
   * `now + lockMs` and the count restarts at 0. Returns the new state. The service counts an attempt
   * before it compares its password (a reservation), so parallel attempts never pass the limit.
   */
  recordListFailure(now: number, maxFailures: number, lockMs: number): Promise<ListFailureState>;
  /**
   * A successful attempt: the count restarts at 0. When `releasing` is the lock's end, the lock is
   * lifted too: the success's own reservation set it (any other lock holds).
   */
  resetListFailures(releasing?: number): Promise<void>;

  /** The documents' read-only links (src/storage/read-links.ts): outside every document's history. */
  readonly readLinks: ReadLinkStore;

  /**
   * Messages to the other instances on a shared database that are never stored (presence,
   * src/service/presence.ts); absent where no other instance can be (SQLite).
   */
  readonly relay?: InstanceRelay;

  /**
   * Subscribes to commits made through this store or, where the store is shared, by other
   * instances. Stores that only this process writes may never call the listener.
   * Returns the unsubscribe function.
   */
  watchCommits(listener: CommitListener): () => void;

  /**
   * Resolves when the store can serve: it answers a query and, where commits of other instances
   * arrive over a notification connection, that connection is up. Rejects otherwise (with
   * {@link StorageUnavailableError} when the database cannot serve). The readiness probe asks it.
   */
  ping(): Promise<void>;

  /** The store's kind and its notification connection's state, for the metrics; cheap, no I/O. */
  stats(): StoreStats;

  /** Closes the store; in-flight writes finish first. */
  close(): Promise<void>;
}
