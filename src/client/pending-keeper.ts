import type { LineCodec } from "./line-codec.js";
import { entryRecord, snapshotRecord, type PendingEntry, type PendingStore } from "./pending-log.js";
import { hasUnconfirmed, type SyncState } from "./sync-text.js";

/** Entries past which the record is compacted at once. */
const MAX_ENTRIES = 500;
/** How long without a change before the record is compacted. */
const IDLE_MS = 2_000;

/**
 * Keeps a live document's unconfirmed edits in its PendingStore (pending-log.ts): the snapshot is
 * written at the first change that leaves something unconfirmed, and again when the document has
 * been idle for a moment (or the entries have grown); every step in between (an edit, a patch sent,
 * its answer, someone else's change) is one entry appended, whether or not something is still
 * unconfirmed after it. So nothing is lost when the page is closed at any moment, and a keystroke
 * writes only its own change: the whole text is written once per spell of typing, never per key
 * (docs/editing-protocol.md, "Persistence"). Once the document is idle (or closed) with nothing
 * unconfirmed the record is removed.
 */
export class PendingKeeper {
  private entries = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A snapshot is in the store (entries go after it). */
  private written = false;
  /** A record may be in the store (a write was tried since the last removal). */
  private dirty = false;

  constructor(
    private readonly store: PendingStore | undefined,
    private readonly documentId: string,
    private readonly codec: LineCodec,
    /** The state to snapshot: texts, client id and next seq, read when the snapshot is written. */
    private readonly current: () => { sync: SyncState; clientId: string; nextSeq: number },
    /** Told of a store that refused to keep something (its quota, say). */
    private readonly failed: (error: Error) => void,
  ) {}

  /** The document opened: a record it adopted (edits still unconfirmed) is written anew, a stale one removed. */
  async start(loaded: boolean): Promise<void> {
    this.dirty = loaded;
    await this.keep();
  }

  /** A step that changed the texts, already applied to the state. */
  async changed(entry: PendingEntry): Promise<void> {
    if (!this.store) return;
    const unconfirmed = hasUnconfirmed(this.current().sync);
    // Nothing kept yet: a snapshot when there is something to keep, else no record at all.
    if (!this.written) return unconfirmed ? this.compact() : this.remove();
    if (this.entries >= MAX_ENTRIES) return this.keep();
    this.entries++;
    this.dirty = true;
    this.scheduleCompaction();
    await this.guarded(() => this.store!.append(this.documentId, entryRecord(entry, this.codec), unconfirmed));
  }

  /** Stops the timer; with nothing unconfirmed the record is removed, else it stays for the next opening. */
  async close(): Promise<void> {
    await this.keep();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The record as the state is now: a snapshot while something is unconfirmed, else none. */
  private async keep(): Promise<void> {
    if (!this.store) return;
    if (hasUnconfirmed(this.current().sync)) await this.compact();
    else await this.remove();
  }

  private async remove(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.written = false;
    this.entries = 0;
    if (!this.dirty) return;
    this.dirty = false;
    await this.guarded(() => this.store!.save(this.documentId, undefined));
  }

  private scheduleCompaction(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.keep(), IDLE_MS);
  }

  private async compact(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.store) return;
    const { sync, clientId, nextSeq } = this.current();
    this.entries = 0;
    this.written = true;
    this.dirty = true;
    await this.guarded(() => this.store!.save(this.documentId, snapshotRecord(sync, clientId, nextSeq, this.codec)));
  }

  private async guarded(write: () => Promise<void> | void): Promise<void> {
    try {
      await write();
    } catch (error) {
      // The next change writes a whole snapshot again.
      this.written = false;
      this.failed(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
