import { diffLines } from "../core/diff-lines.js";
import { joinLines, splitLines } from "../core/lines.js";
import { toLineOperation } from "../core/normalized-op.js";
import { textEdits, type Slide, type TextEdit } from "../core/text-edits.js";
import { RetryNow, abortError } from "./backoff.js";
import { BlankHold } from "./blank-hold.js";
import { adoptPersisted, toPersisted, type Inflight } from "./carry-over.js";
import { ConflictDeck, type Snapshot } from "./conflicts.js";
import { Emitter } from "./events.js";
import type { FolioClient } from "./http.js";
import type { Conflict, LiveDocument, OpenOptions, PersistedPending, SyncStatus, TextChange } from "./live-types.js";
import { initialState, quiet, statusOf, transition, unconfirmedPatch, type LiveEvent, type LiveState } from "./live-state.js";
import type { RetryContext } from "./retrying.js";
import { SyncWaiters } from "./sync-waiters.js";
import { PLAIN_CODEC, snapshotOf, type LineCodec } from "./line-codec.js";
import type { ChangeFeed, Document } from "./types.js";

export type Events = {
  change: [TextChange];
  title: [string];
  deleted: [];
  restored: [];
  conflict: [Conflict];
  error: [Error];
  status: [SyncStatus];
};

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The data of a live document and everything the editor calls that does not talk to the service:
 * the confirmed text (the service's, at `version`), the local text on top of it, the queues, the
 * status, the events and the persistence of what is unconfirmed. Its states (where the patch is, a
 * reload due, deleted, failing, closed) are one `state`, changed only through `apply` (live-state.ts).
 * The protocol (the worker, the feed, patches and reloads) is LiveDocumentImpl's (live-document.ts).
 */
export abstract class DocumentState implements LiveDocument {
  readonly emitter = new Emitter<Events>();
  protected confirmed: Snapshot;
  protected local: string[];
  protected localText: string;
  protected titleText: string;
  /** Where the patch is, and whether a reload is due, the document deleted, requests failing: live-state.ts. */
  protected state: LiveState;
  protected milestones: Inflight["milestones"] = [];
  protected readonly feedQueue: Array<{ answer: ChangeFeed; done: () => void }> = [];
  protected announced = 0;
  protected eventsSeen: number;
  /**
   * The text at the version the feed is asked from (docs/editing-protocol.md, "Following the
   * feed"): the version of the last feed answer, not of this client's own acknowledged patches, so
   * that the authors of one document poll from one version and share one answer.
   */
  protected feedBase: Snapshot;
  protected lastStatus: SyncStatus = "synced";
  protected nextSeq: number;
  protected displayName: string | undefined;
  protected wakeUp: (() => void) | undefined;
  protected readonly syncWaiters: SyncWaiters;
  protected readonly controller = new AbortController();
  protected readonly conflicts: ConflictDeck;
  protected readonly timeoutMs: number;
  protected readonly hold: BlankHold;
  protected readonly retrying: RetryContext;
  /** Ends the waits between retries early (retryNow). */
  protected readonly now = new RetryNow();

  constructor(
    protected readonly client: FolioClient,
    readonly id: string,
    document: Document,
    readonly clientId: string,
    protected readonly options: OpenOptions,
    persisted: PersistedPending | undefined,
    /** How the service's lines and title become the shown ones: the identity, or decryption (docs/encryption.md). */
    protected readonly codec: LineCodec = PLAIN_CODEC,
  ) {
    this.confirmed = snapshotOf(codec, document.version, splitLines(document.content));
    this.local = this.confirmed.lines;
    this.localText = joinLines(this.local);
    this.titleText = codec.decodeTitle(document.title);
    this.eventsSeen = document.version;
    this.feedBase = this.confirmed;
    this.displayName = options.displayName;
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.hold = new BlankHold(options.blankHoldMs ?? 700);
    this.nextSeq = persisted && persisted.clientId === clientId ? persisted.nextSeq : 1;
    this.conflicts = new ConflictDeck(this.emitter, this.controller.signal);
    this.syncWaiters = new SyncWaiters(this.controller.signal);
    this.retrying = {
      signal: this.controller.signal,
      timeoutMs: this.timeoutMs,
      retry: options.retry,
      failing: (failing) => this.setFailing("patch", failing),
      now: this.now,
    };
    if (persisted) {
      this.local = splitLines(persisted.text);
      this.localText = joinLines(this.local);
    }
    this.state = initialState(persisted && adoptPersisted(persisted, clientId, codec));
    if (options.onConflict) this.emitter.on("conflict", options.onConflict);
  }

  get text(): string {
    return this.localText;
  }
  get version(): number {
    return this.confirmed.version;
  }
  get title(): string {
    return this.titleText;
  }
  get deleted(): boolean {
    return this.state.deleted;
  }
  get status(): SyncStatus {
    return this.lastStatus;
  }
  get closed(): boolean {
    return this.state.phase.kind === "closed";
  }

  on<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  setText(next: string): void {
    if (this.closed) return;
    if (this.state.deleted) {
      this.emitter.emit("error", new Error("the document is deleted: it is read-only until it is restored"));
      return;
    }
    const lines = splitLines(next);
    const previousText = this.localText;
    const text = joinLines(lines);
    if (text === previousText) return;
    const previous = this.local;
    this.local = lines;
    this.localText = text;
    this.apply({ type: "edited" });
    this.hold.edited(this.changed("local", previous, previousText));
    void this.persist();
    this.updateStatus();
    this.wake();
  }

  setDisplayName(name: string | undefined): void {
    this.displayName = name;
  }

  saveMilestone(): Promise<void> {
    if (this.closed) return Promise.reject(abortError());
    if (this.state.deleted) return Promise.reject(new Error("the document is deleted: it is read-only until it is restored"));
    return new Promise((resolve, reject) => {
      this.milestones.push({ resolve, reject });
      this.apply({ type: "edited" });
      this.updateStatus();
      this.wake();
    });
  }

  retryNow(): void {
    this.now.fire();
  }

  whenSynced(timeoutMs?: number): Promise<void> {
    if (this.closed) return Promise.reject(abortError());
    if (this.isSynced()) return Promise.resolve();
    return this.syncWaiters.wait(timeoutMs);
  }

  close(): void {
    if (this.closed) return;
    const patch = unconfirmedPatch(this.state);
    this.apply({ type: "closed" });
    this.controller.abort(abortError());
    for (const waiter of [...this.milestones, ...(patch?.milestones ?? [])]) waiter.reject(abortError());
    this.milestones = [];
    this.feedQueue.splice(0).forEach((item) => item.done());
    this.wake();
  }

  protected wake(): void {
    this.wakeUp?.();
  }

  /** The worker waits here, settled, until wake() is called (or `ms` have passed). */
  protected async idle(ms?: number): Promise<void> {
    this.settle();
    await new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeUp = undefined;
  }

  /** Queues a feed answer for the worker; the feed loop polls again once it is applied. */
  protected deliver(answer: ChangeFeed): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.announced = Math.max(this.announced, answer.currentVersion);
    return new Promise((done) => {
      this.feedQueue.push({ answer, done });
      this.updateStatus();
      this.wake();
    });
  }

  /** The local text differs from the confirmed one, or a milestone waits. */
  protected hasEdits(): boolean {
    return this.milestones.length > 0 || this.localText !== joinLines(this.confirmed.lines);
  }

  // ---- small state changes ---------------------------------------------------------------------

  /** Changes the state (live-state.ts) and tells the listeners when the document was deleted or restored. */
  protected apply(event: LiveEvent): void {
    const deleted = this.state.deleted;
    this.state = transition(this.state, event);
    if (this.state.deleted !== deleted) this.emitter.emit(deleted ? "restored" : "deleted");
  }

  /**
   * `slide`: where the change's character edits place text that could slide (core/text-edits.ts);
   * `theirs`: for a merge with local edits, the service's side, where the text put in was taken from.
   */
  protected replaceLocal(lines: string[], slide: Slide = "early", theirs?: readonly string[]): void {
    const previousText = this.localText;
    const text = joinLines(lines);
    const previous = this.local;
    this.local = lines;
    this.localText = text;
    if (text !== previousText) this.changed("remote", previous, previousText, slide, theirs && slide === "early" ? linesNotIn(theirs, previous) : undefined);
  }

  private changed(origin: TextChange["origin"], previous: string[], previousText: string, slide: Slide = "early", source?: string): TextEdit[] {
    const ops = diffLines(previous, this.local);
    const edits = textEdits(previous, ops, slide, source);
    this.emitter.emit("change", { origin, previousText, text: this.localText, ops: ops.map(toLineOperation), edits });
    return edits;
  }

  protected setTitle(title: string): void {
    if (title === this.titleText) return;
    this.titleText = title;
    this.emitter.emit("title", title);
  }

  protected setFailing(loop: "patch" | "feed", failing: boolean): void {
    this.apply({ type: "failing", loop, failing });
    this.updateStatus();
  }

  protected isSynced(): boolean {
    return (
      quiet(this.state) &&
      this.feedQueue.length === 0 &&
      this.milestones.length === 0 &&
      this.confirmed.version >= this.announced &&
      (this.state.deleted || this.localText === joinLines(this.confirmed.lines))
    );
  }

  protected settle(): void {
    this.updateStatus();
    if (!this.isSynced()) return;
    this.syncWaiters.release();
  }

  protected updateStatus(force?: SyncStatus): void {
    if (this.closed) return;
    const status = force ?? statusOf(this.state, this.conflicts.open, () => this.isSynced());
    if (status === this.lastStatus) return;
    this.lastStatus = status;
    this.emitter.emit("status", status);
  }

  // ---- persistence -----------------------------------------------------------------------------

  protected async persist(): Promise<void> {
    const store = this.options.pendingStore;
    if (!store || this.closed) return;
    const pending = toPersisted({
      patch: unconfirmedPatch(this.state),
      confirmed: this.confirmed,
      localText: this.localText,
      clientId: this.clientId,
      nextSeq: this.nextSeq,
    });
    try {
      await store.save(this.id, this.codec.sealPending(pending));
    } catch (error) {
      this.emitter.emit("error", error instanceof Error ? error : new Error(String(error)));
    }
  }

  abstract rename(title: string): Promise<void>;
}

/**
 * The lines of `theirs` that `mine` does not have, joined: where a merge's text put into `mine`
 * came from, and only there (the rest of the document could hold the same words elsewhere).
 */
function linesNotIn(theirs: readonly string[], mine: readonly string[]): string | undefined {
  const had = new Set(mine);
  const changed = theirs.filter((line) => !had.has(line));
  return changed.length > 0 ? changed.join("\n") : undefined;
}
