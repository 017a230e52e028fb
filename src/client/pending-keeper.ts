import type { LineCodec } from "./line-codec.js";
import { entryRecord, snapshotRecord, type PendingEntry, type PendingStore } from "./pending-log.js";
import type { SyncState } from "./sync-text.js";

/** Entries past which the record is compacted at once. */
const MAX_ENTRIES = 500;
/** How long without a change before the record is compacted. */
const IDLE_MS = 2_000;

/**
 * Keeps a live document's texts in its PendingStore (pending-log.ts): the snapshot is written when
 * the document opens and again when it has been idle for a moment (or the entries have grown);
 * every change in between is one entry appended. So nothing is lost when the page is closed at
 * any moment, and a keystroke writes only its own change. A record of a document closed with
 * nothing unconfirmed is removed.
 */
export class PendingKeeper {
  private entries = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private written = false;

  constructor(
    private readonly store: PendingStore | undefined,
    private readonly documentId: string,
    private readonly codec: LineCodec,
    /** The state to snapshot: texts, client id and next seq, read when the snapshot is written. */
    private readonly current: () => { sync: SyncState; clientId: string; nextSeq: number },
    /** Told of a store that refused to keep something (its quota, say). */
    private readonly failed: (error: Error) => void,
  ) {}

  /** Writes the snapshot now (the document opened). */
  async start(): Promise<void> {
    await this.compact();
  }

  /** A step that changed the texts, already applied to the state. */
  async changed(entry: PendingEntry): Promise<void> {
    if (!this.store) return;
    if (!this.written || this.entries >= MAX_ENTRIES) return this.compact();
    this.entries++;
    this.scheduleCompaction();
    await this.guarded(() => this.store!.append(this.documentId, entryRecord(entry, this.codec)));
  }

  /** Stops the timer; with nothing unconfirmed the record is removed, else it stays for the next opening. */
  async close(unconfirmed: boolean): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.store || unconfirmed) return;
    this.written = false;
    await this.guarded(() => this.store!.save(this.documentId, undefined));
  }

  private scheduleCompaction(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.compact(), IDLE_MS);
  }

  private async compact(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.store) return;
    const { sync, clientId, nextSeq } = this.current();
    this.entries = 0;
    this.written = true;
    await this.guarded(() => this.store!.save(this.documentId, snapshotRecord(sync, clientId, nextSeq, this.codec)));
  }

  private async guarded(write: () => Promise<void> | void): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.written = false;
      this.failed(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
