import { ChangeSet } from "@codemirror/state";
import type { TextEdit } from "../core/char-diff.js";
import { mapCursor } from "../core/concurrent-changes.js";
import { splitLines } from "../core/lines.js";
import { changesToLines, editsOf } from "../core/text-changes.js";
import { Backoff, RetryNow, abortError, sleep } from "./backoff.js";
import { ConflictDeck } from "./conflicts.js";
import { DocumentRequests } from "./document-requests.js";
import { isTransient } from "./errors.js";
import { Emitter } from "./events.js";
import { FeedInbox } from "./feed-inbox.js";
import type { FolioClient } from "./http.js";
import { KeyLostError } from "./key-check.js";
import type { LineCodec } from "./line-codec.js";
import { initialState, nextStep, quiet, statusOf, transition, withSync, type LiveEvent, type LiveState, type PatchSettlement, type Step } from "./live-state.js";
import type { LiveDocument, LiveEvents, OpenOptions, SyncStatus } from "./live-types.js";
import { Milestones } from "./milestones.js";
import { ownBefore } from "./own-text.js";
import { FollowCycle, type FollowHost } from "./follow-cycle.js";
import { PatchCycle, type PatchHost } from "./patch-cycle.js";
import { PendingKeeper } from "./pending-keeper.js";
import { PresenceChannel } from "./presence.js";
import { stepBetween, syncPositions } from "./presence-versions.js";
import type { PendingEntry } from "./pending-log.js";
import { SyncWaiters } from "./sync-waiters.js";
import { edited, type Moved, type SyncState } from "./sync-text.js";
import type { ChangeFeed, Document } from "./types.js";

/**
 * A live document (docs/editing-protocol.md, "The client"): one patch in flight at most, and a feed
 * loop. Everything about its texts, versions and patch is one `LiveState` (live-state.ts, with the
 * texts' algebra in sync-text.ts); a single worker takes every step that changes it in turn (take a
 * patch's answer, apply a feed answer, reload, send), so no two of them interleave. Those steps are
 * patch-cycle.ts (the local edits out) and follow-cycle.ts (the service's text in), their requests
 * document-requests.ts. Local edits are taken at once from the editor, as character changes, and
 * kept (pending-keeper.ts).
 */
export class LiveDocumentImpl implements LiveDocument {
  private state: LiveState;
  private readonly emitter = new Emitter<LiveEvents>();
  private readonly inbox = new FeedInbox((answer) => this.arrived(answer));
  private readonly milestones = new Milestones();
  private titleText: string;
  private lastStatus: SyncStatus = "synced";
  private displayName: string | undefined;
  private wakeUp: (() => void) | undefined;
  private readonly controller = new AbortController();
  private readonly syncWaiters = new SyncWaiters(this.controller.signal);
  private readonly conflicts = new ConflictDeck(this.emitter, this.controller.signal);
  private readonly now = new RetryNow();
  private readonly keeper: PendingKeeper;
  private readonly requests: DocumentRequests;
  private readonly patches: PatchCycle;
  private readonly follows: FollowCycle;
  readonly presence: PresenceChannel;

  constructor(
    private readonly client: FolioClient,
    readonly id: string,
    document: Document,
    readonly clientId: string,
    private readonly options: OpenOptions,
    start: { sync: SyncState; nextSeq: number },
    /** The service's lines and title ⇄ the shown ones: the identity, or decryption (docs/encryption.md). */
    private readonly codec: LineCodec,
  ) {
    this.state = initialState(start.sync, start.nextSeq);
    this.titleText = codec.decodeTitle(document.title);
    this.displayName = options.displayName;
    const { signal } = this.controller;
    const failing = (failing: boolean) => this.apply({ type: "failing", loop: "patch", failing });
    this.requests = new DocumentRequests(client, id, codec, { signal, timeoutMs: options.requestTimeoutMs ?? 30_000, retry: options.retry, failing, now: this.now });
    const current = () => ({ sync: this.state.sync, clientId, nextSeq: this.state.nextSeq });
    this.keeper = new PendingKeeper(options.pendingStore, id, codec, current, (error) => this.emitter.emit("error", error));
    const settings = { clientId, conflicts: options.conflicts, retry: options.retry, signal, displayName: () => this.displayName };
    this.patches = new PatchCycle(this.host(), this.requests, this.milestones, this.conflicts, codec, settings);
    this.follows = new FollowCycle(this.host(), this.requests, codec);
    if (options.onConflict) this.emitter.on("conflict", options.onConflict);
    const host = { client, place: { documentId: id }, role: "editor" as const, clientId, codec, signal, listening: () => this.emitter.count("presence") > 0 };
    this.presence = new PresenceChannel({ ...host, ...syncPositions(() => this.state.sync), emit: (others) => this.emitter.emit("presence", others) }, options.presence);
  }

  /** What the patch and follow cycles may read and change (patch-cycle.ts, follow-cycle.ts). */
  private host(): PatchHost & FollowHost {
    return {
      state: () => this.state,
      setSync: (sync: SyncState) => {
        const before = this.state.sync;
        this.state = withSync(this.state, sync);
        this.presence.moved(before.confirmed.version, sync.confirmed.version, stepBetween(before, sync, undefined));
      },
      apply: (event: LiveEvent) => this.apply(event),
      keep: (entry: PendingEntry) => this.keeper.changed(entry),
      moveTo: (moved: Moved, entry: PendingEntry) => this.moveTo(moved, entry),
      answered: (outcome: PatchSettlement) => {
        this.apply({ type: "answered", outcome });
        this.wake();
      },
      setTitle: (title: string) => this.setTitle(title),
      lostKey: () => this.apply({ type: "key-lost" }),
      report: (error: Error) => this.emitter.emit("error", error),
      asking: () => this.updateStatus("conflict"),
    };
  }

  /** Keeps the texts (`stored`: a record of this client's was read), starts the worker and the feed loop. */
  async start(stored: boolean): Promise<void> {
    await this.keeper.start(stored);
    this.updateStatus();
    void this.run();
    this.inbox.follow({
      client: this.client,
      id: this.id,
      signal: this.controller.signal,
      waitSeconds: this.options.waitSeconds ?? 25,
      retry: this.options.retry,
      now: this.now,
      // From the last version whose event was taken: every rename and deletion is seen.
      since: () => Math.min(this.state.eventsSeen, this.state.sync.confirmed.version),
      ...(this.options.feed === "stream" ? { stream: (since, signal) => this.client.events(this.id, since, signal), firstFrameMs: this.options.firstFrameMs } : {}),
      presence: (list) => this.presence.heard(list),
      streaming: (open) => this.presence.setStreaming(open),
      failing: (failing, error) => {
        this.apply({ type: "failing", loop: "feed", failing });
        if (error && !isTransient(error)) this.emitter.emit("error", error);
      },
    });
    this.presence.start();
  }

  get text(): string { return this.state.sync.local.toString(); }
  get doc() { return this.state.sync.local; }
  get version(): number { return this.state.sync.confirmed.version; }
  get title(): string { return this.titleText; }
  get deleted(): boolean { return this.state.deleted; }
  get keyLost(): boolean { return this.state.keyLost; }
  get status(): SyncStatus { return this.lastStatus; }
  get closed(): boolean { return this.state.phase.kind === "closed"; }

  on<K extends keyof LiveEvents>(event: K, listener: (...args: LiveEvents[K]) => void): () => void {
    const off = this.emitter.on(event, listener);
    if (event === "presence") this.presence.listened();
    return off;
  }

  edit(changes: ChangeSet | readonly TextEdit[]): void {
    if (this.closed) return;
    // Under a key that no longer opens the document nothing is taken, so nothing is sealed or kept.
    if (this.state.keyLost) throw new KeyLostError();
    const local = this.state.sync.local;
    const set = Array.isArray(changes) ? ChangeSet.of(changes as TextEdit[], local.length) : (changes as ChangeSet);
    if (set.length !== local.length) throw new RangeError(`an edit of a text of ${set.length} characters, on a text of ${local.length}`);
    if (set.empty) return;
    this.state = withSync(this.state, edited(this.state.sync, set));
    this.apply({ type: "edited" });
    void this.keeper.changed({ edit: set.toJSON() });
    this.wake();
  }

  setText(next: string): void {
    this.edit(changesToLines(this.state.sync.local, splitLines(next)));
  }

  setDisplayName(name: string | undefined): void {
    this.displayName = name;
  }

  saveMilestone(): Promise<void> {
    if (this.closed) return Promise.reject(abortError());
    if (this.state.deleted) return Promise.reject(new Error("the document is deleted: it is read-only until it is restored"));
    const saved = this.milestones.add();
    this.wake();
    return saved;
  }

  async rename(title: string): Promise<void> {
    const renamed = await this.requests.rename(title, this.version);
    this.setTitle(this.codec.decodeTitle(renamed.title));
  }

  retryNow(): void {
    this.now.fire();
  }

  whenSynced(timeoutMs?: number): Promise<void> {
    if (this.closed) return Promise.reject(abortError());
    return this.isSynced() ? Promise.resolve() : this.syncWaiters.wait(timeoutMs);
  }

  close(): void {
    if (this.closed) return;
    this.apply({ type: "closed" });
    this.controller.abort(abortError());
    this.milestones.abort();
    this.inbox.clear();
    this.presence.close();
    void this.keeper.close();
    this.wake();
  }

  // ---- the worker ------------------------------------------------------------------------------

  private async run(): Promise<void> {
    const backoff = new Backoff(this.options.retry);
    while (!this.closed) {
      try {
        await this.step(nextStep(this.state, { feedQueued: () => this.inbox.waiting, milestoneWaiting: () => this.milestones.wanted }));
        backoff.reset();
      } catch (error) {
        if (this.closed) return;
        // Only a bug or an unexpected answer gets here; report it and go on after a pause.
        this.emitter.emit("error", error instanceof Error ? error : new Error(String(error)));
        await sleep(backoff.next(), this.controller.signal).catch(() => undefined);
      }
    }
  }

  private async step(step: Step): Promise<void> {
    switch (step.do) {
      case "take":
        return this.patches.take(step.outcome);
      case "apply-feed":
        return this.inbox.take((answer) => this.follows.applyFeed(answer));
      case "reload":
        return this.follows.reload();
      case "resend":
        return this.patches.request();
      case "send":
        return this.patches.send();
      case "wait":
        return this.idle();
      case "stop":
        return;
    }
  }

  /** Takes a step of the texts: kept, then shown; one bringing lines that do not open first has the key checked (follow-cycle.ts). */
  private async moveTo(moved: Moved, entry: PendingEntry): Promise<void> {
    if (await this.follows.keyLostBy(moved)) return;
    const before = this.state.sync;
    this.state = withSync(this.state, moved.state);
    await this.keeper.changed(entry);
    if (!moved.remote.empty) {
      const mapCursorThrough = (pos: number) => mapCursor(before.local, moved.remote, pos, ownBefore(before.own, ChangeSet.empty(before.local.length)));
      this.emitter.emit("change", { origin: "remote", changes: moved.remote, edits: editsOf(moved.remote), version: moved.state.confirmed.version, mapCursor: mapCursorThrough });
    }
    // After the change: an editor told of the others' cursors on the new text has it by then.
    this.presence.moved(before.confirmed.version, moved.state.confirmed.version, stepBetween(before, moved.state, moved.remote));
    this.updateStatus();
  }

  /** The worker waits here, settled, until wake() is called. */
  private async idle(): Promise<void> {
    this.updateStatus();
    if (this.isSynced()) this.syncWaiters.release();
    await new Promise<void>((resolve) => (this.wakeUp = resolve));
    this.wakeUp = undefined;
  }

  private wake(): void {
    this.updateStatus();
    this.wakeUp?.();
  }

  /** A feed answer is queued for the worker (false when closed: it is dropped). */
  private arrived(answer: ChangeFeed): boolean {
    if (this.closed) return false;
    this.apply({ type: "announced", version: answer.currentVersion });
    this.wake();
    return true;
  }

  private isSynced(): boolean {
    return quiet(this.state) && !this.inbox.waiting && !this.milestones.wanted && this.state.sync.confirmed.version >= this.state.announced;
  }

  /** Changes the state (live-state.ts) and tells the listeners of a deletion, a restore, a key lost and the status. */
  private apply(event: LiveEvent): void {
    const { deleted, keyLost } = this.state;
    this.state = transition(this.state, event);
    if (this.state.deleted !== deleted) this.emitter.emit(deleted ? "restored" : "deleted");
    if (this.state.keyLost && !keyLost) this.emitter.emit("key-lost");
    this.updateStatus();
  }

  private setTitle(title: string): void {
    if (title === this.titleText) return;
    this.titleText = title;
    this.emitter.emit("title", title);
  }

  private updateStatus(force?: SyncStatus): void {
    if (this.closed) return;
    const status = force ?? statusOf(this.state, this.conflicts.open, this.isSynced());
    if (status === this.lastStatus) return;
    this.lastStatus = status;
    this.emitter.emit("status", status);
  }
}
