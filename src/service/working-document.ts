import { joinLines } from "../core/lines.js";
import { checksumOf, type Sha256Hex } from "../core/checksum.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import { receiptKeyString, type ChangeType, type DocumentRecord, type DocumentTransaction, type PatchReceipt, type ReceiptKey, type VersionRecord, type VersionSummary } from "../storage/store.js";
import type { HistoryPolicy } from "./history-policy.js";
import { RECENT_VERSIONS, opsWeight, recentAfter, recentAt, summaryWeight, type CachedHead } from "./caches/head-cache.js";
import { rebuildText, type TextSource } from "./document-text.js";
import { ForeignOps } from "./caches/foreign-ops.js";

/** A change to record as the next version. */
export interface VersionDraft {
  changeType: ChangeType;
  milestone: boolean;
  title: string;
  lines: string[];
  /** The exact text: the content as sent for whole-text changes (CRLF kept); `lines` LF-joined when absent. */
  text?: string;
  /** The line ops from the current text to `lines`. */
  ops: NormalizedOp[];
  deleted: boolean;
  clientId?: string;
  displayName?: string;
  /**
   * A whole-text change (PUT, restore, rollback): the version it replaces becomes a milestone first,
   * as after a write pause, so that no user action makes the text before it unreachable
   * (docs/interface.md#whole-text-changes).
   */
  keepsPrevious?: boolean;
}

/** The rules the working document applies on every commit. */
export interface WritePolicy extends HistoryPolicy {
  sha256: Sha256Hex;
}

// A snapshot rewrites the whole text, so it is spread thin: every 32 versions for small texts, and
// for large ones every (length / 1 KiB) versions, up to 1,000 (a 1 MB text), which keeps its share
// of the bytes a one-line patch writes small (docs/benchmarks.md#storage-measurements-behind-the-code)
// while a rebuild replays at most 1,000 small ops.
const MIN_VERSIONS_BETWEEN_SNAPSHOTS = 32;
const CHARACTERS_PER_VERSION = 1024;
const MAX_VERSIONS_BETWEEN_SNAPSHOTS = 1000;

function snapshotDue(versionsSinceBasis: number, length: number): boolean {
  if (versionsSinceBasis >= MAX_VERSIONS_BETWEEN_SNAPSHOTS) return true;
  return versionsSinceBasis >= MIN_VERSIONS_BETWEEN_SNAPSHOTS && versionsSinceBasis * CHARACTERS_PER_VERSION >= length;
}

/**
 * One document as seen by the commands of one write batch: the committed state read inside the
 * store's exclusive section, plus what earlier commands of the batch decided. Commands check
 * first and call {@link commit} last, so a command that throws leaves nothing behind.
 */
export class WorkingDocument implements TextSource {
  private readonly staged: VersionRecord[] = [];
  private readonly stagedReceipts = new Map<string, PatchReceipt>();
  /** Committed receipts read ahead by {@link loadReceipts}; `undefined` for a key without one. */
  private readonly loadedReceipts = new Map<string, PatchReceipt | undefined>();
  private readonly committedHead: number;
  private recentCopy: VersionSummary[] | undefined;
  /** The compositions of the versions after a base made by this batch and the batches before it. */
  readonly foreignOps: ForeignOps;
  private recentWeight = 0;

  private constructor(
    readonly id: string,
    private readonly tx: DocumentTransaction,
    private readonly policy: WritePolicy,
    private head: DocumentRecord | undefined,
    private current: CachedHead | undefined,
  ) {
    this.committedHead = head?.version ?? 0;
    // Kept with the cached head: a batch whose writes fail drops that entry, and with it any
    // composition that reached into versions that were never committed.
    this.foreignOps = current?.foreignOps ?? new ForeignOps(RECENT_VERSIONS);
  }

  /** Reads the head inside the exclusive section; the cached text is used when its version matches. */
  static async load(
    id: string,
    tx: DocumentTransaction,
    policy: WritePolicy,
    cached: (version: number) => CachedHead | undefined,
  ): Promise<WorkingDocument> {
    const head = await tx.document();
    return new WorkingDocument(id, tx, policy, head, head && cached(head.version));
  }

  /** The head as decided so far; `undefined` when the document never existed. */
  get document(): DocumentRecord | undefined {
    return this.head;
  }

  /** The text of the head as lines. */
  async lines(): Promise<string[]> {
    return (await this.headText()).lines;
  }

  /** The exact text of the head. */
  async text(): Promise<string> {
    return (await this.headText()).text;
  }

  /** Versions in `(after, head]`, committed and decided in this batch, oldest first (what ForeignOps.since reads). */
  async versionsAfter(after: number): Promise<VersionSummary[]> {
    const inMemory = this.current && recentAfter(this.current, after, this.policy.cutoff());
    if (inMemory) return inMemory;
    const committed = after < this.committedHead ? await this.tx.versions(after, this.committedHead) : [];
    return [...committed, ...this.staged.filter((record) => record.version > after)];
  }

  /**
   * The size of the ops of the versions in `(after, head]`, committed and decided in this batch: the
   * characters of those held in memory, else the UTF-8 bytes of their stored JSON, weighed without
   * reading them (a compacted version weighs nothing; the caller checked its base's are kept).
   */
  async opsSizeAfter(after: number): Promise<number> {
    const inMemory = this.current && recentAfter(this.current, after, this.policy.cutoff());
    const staged = this.staged.filter((record) => record.version > after);
    const stagedSize = staged.reduce((sum, record) => sum + opsWeight(record.ops ?? []), 0);
    if (inMemory) return inMemory.reduce((sum, record) => sum + opsWeight(record.ops ?? []), 0);
    const committed = after < this.committedHead ? await this.tx.versionHeads(after, this.committedHead) : [];
    return committed.reduce((sum, version) => sum + (version.opsBytes ?? 0), stagedSize);
  }

  /** Versions in `(after, upTo]`, committed and decided in this batch (a {@link TextSource}). */
  async versions(after: number, upTo: number): Promise<VersionSummary[]> {
    const inMemory = this.current && recentAfter(this.current, after, this.policy.cutoff());
    if (inMemory) return inMemory.filter((record) => record.version <= upTo);
    // Only the range from the store: a repeat of an old patch reads the versions it was shifted over, not every one since.
    const committed = after < this.committedHead ? await this.tx.versions(after, Math.min(upTo, this.committedHead)) : [];
    return [...committed, ...this.staged.filter((record) => record.version > after && record.version <= upTo)];
  }

  /** One version (without its text), committed or decided in this batch. */
  async version(version: number): Promise<VersionSummary | undefined> {
    const inMemory = this.current && recentAt(this.current, version, this.policy.cutoff());
    if (inMemory) return inMemory;
    if (version > this.committedHead) return this.staged.find((record) => record.version === version);
    return this.tx.version(version);
  }

  /** The newest full text at or before `version`, committed or decided in this batch. */
  async fullTextAtOrBefore(version: number): Promise<{ version: number; text: string } | undefined> {
    const staged = this.staged.findLast((record) => record.version <= version && record.text !== null);
    if (staged?.text != null) return { version: staged.version, text: staged.text };
    return this.tx.fullTextAtOrBefore(Math.min(version, this.committedHead));
  }

  /** Reads the committed receipts among `keys` at once, so that {@link receipt} answers them from memory. */
  async loadReceipts(keys: readonly ReceiptKey[]): Promise<void> {
    const unread = keys.filter((key) => !this.loadedReceipts.has(receiptKeyString(key)));
    if (unread.length === 0) return;
    const found = await this.tx.receipts(unread);
    for (const key of unread) this.loadedReceipts.set(receiptKeyString(key), undefined);
    for (const receipt of found) this.loadedReceipts.set(receiptKeyString(receipt), receipt);
  }

  /** A patch receipt, committed or decided in this batch. */
  async receipt(clientId: string, seq: number): Promise<PatchReceipt | undefined> {
    const key = receiptKeyString({ clientId, seq });
    const staged = this.stagedReceipts.get(key);
    if (staged) return staged;
    if (this.loadedReceipts.has(key)) return this.loadedReceipts.get(key);
    return this.tx.receipt(clientId, seq);
  }

  /**
   * Whether a receipt may refer to versions made at or after `createdAt` instead of copying their
   * composed ops: when they are in the newer half of the retention period, no compaction, running
   * now or soon on this instance or another (whose clock may be a little off), can clear them before
   * the receipt is committed, and from then on compaction keeps them while the receipt lives.
   */
  mayReferToVersionsSince(createdAt: number): boolean {
    return createdAt >= (this.policy.now() + this.policy.cutoff()) / 2;
  }

  putReceipt(receipt: PatchReceipt): void {
    this.stagedReceipts.set(receiptKeyString(receipt), receipt);
    this.tx.putReceipt(receipt);
  }

  /** Records `draft` as the next version and makes it the head. */
  async commit(draft: VersionDraft): Promise<VersionRecord> {
    const now = this.policy.now();
    const previous = this.head;
    const current = previous ? await this.headText() : undefined;
    const version = (previous?.version ?? 0) + 1;
    const text = draft.text ?? joinLines(draft.lines);
    const checksum = checksumOf(text, this.policy.sha256);

    const recent = this.ownRecent(current);
    if (previous && current && !current.milestone && (draft.keepsPrevious === true || now - previous.updatedAt >= this.policy.pauseMs)) {
      this.tx.markMilestone(previous.version, current.text);
      const promoted = this.staged.find((record) => record.version === previous.version);
      if (promoted) promoted.milestone = true;
      const index = recent.findLastIndex((record) => record.version === previous.version);
      if (index >= 0) recent[index] = { ...recent[index]!, milestone: true };
    }

    const record: VersionRecord = {
      documentId: this.id,
      version,
      changeType: draft.changeType,
      milestone: draft.milestone,
      createdAt: now,
      title: draft.title,
      ops: draft.ops,
      checksum,
      text: draft.milestone ? text : null,
    };
    if (draft.clientId !== undefined) record.clientId = draft.clientId;
    if (draft.displayName !== undefined) record.displayName = draft.displayName;

    this.head = {
      id: this.id,
      title: draft.title,
      version,
      deleted: draft.deleted,
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
      checksum,
    };
    this.tx.putDocument(this.head);
    this.tx.appendVersion(record);
    this.staged.push(record);

    let basisVersion = draft.milestone ? version : (current?.basisVersion ?? version);
    if (!draft.milestone && snapshotDue(version - basisVersion, text.length)) {
      this.tx.putSnapshot({ version, text });
      basisVersion = version;
    }
    const { text: _text, ...summary } = record;
    recent.push(summary);
    this.recentWeight += summaryWeight(summary);
    this.current = { version, text, lines: draft.lines, basisVersion, milestone: draft.milestone, recent, recentWeight: this.recentWeight };
    return record;
  }

  /** Writes the head's text as the snapshot, so the ops before it are no longer needed. */
  async writeSnapshot(): Promise<void> {
    if (!this.head) return;
    const current = await this.headText();
    this.tx.putSnapshot({ version: current.version, text: current.text });
    this.current = { ...current, basisVersion: current.version };
  }

  /** Whether a command of this batch recorded a new version. */
  get changed(): boolean {
    return (this.head?.version ?? 0) !== this.committedHead;
  }

  /** What the head cache keeps after the batch commits: the head, and its newest versions up to {@link RECENT_VERSIONS}. */
  cacheEntry(): CachedHead | undefined {
    const current = this.current;
    if (!current) return undefined;
    if (current.recent.length <= RECENT_VERSIONS) return { ...current, foreignOps: this.foreignOps };
    const dropped = current.recent.length - RECENT_VERSIONS;
    let recentWeight = current.recentWeight;
    for (let index = 0; index < dropped; index++) recentWeight -= summaryWeight(current.recent[index]!);
    return { ...current, recent: current.recent.slice(dropped), recentWeight, foreignOps: this.foreignOps };
  }

  // The batch's own copy of the newest versions, made at its first commit: the cached entry stays
  // as it was (a reader may still hold it), and the commits of the batch append in place.
  private ownRecent(current: CachedHead | undefined): VersionSummary[] {
    if (!this.recentCopy) {
      this.recentCopy = [...(current?.recent ?? [])];
      this.recentWeight = current?.recentWeight ?? 0;
    }
    return this.recentCopy;
  }

  private async headText(): Promise<CachedHead> {
    if (this.current) return this.current;
    const head = this.head;
    if (!head) throw new Error(`document ${this.id} has no text: it does not exist`);
    const rebuilt = await rebuildText(this.tx, head.version);
    if (!rebuilt) throw new Error(`the newest text of document ${this.id} cannot be rebuilt: its ops are gone`);
    const record = await this.tx.version(head.version);
    this.current = {
      version: head.version,
      text: rebuilt.text,
      lines: rebuilt.lines,
      basisVersion: rebuilt.basisVersion,
      milestone: record?.milestone ?? false,
      recent: [],
      recentWeight: 0,
    };
    return this.current;
  }
}
