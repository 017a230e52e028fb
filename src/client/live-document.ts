import { ChangeSet } from "@codemirror/state";
import type { TextEdit } from "../core/char-diff.js";
import { joinLines, splitLines } from "../core/lines.js";
import { mapCursor } from "../core/concurrent-changes.js";
import { changesToLines, editsOf } from "../core/text-changes.js";
import { ownBefore } from "./own-text.js";
import { validateOps } from "../core/validate-ops.js";
import { chosenEdits, mergeMineWins, resolvedTo } from "./ask-conflict.js";
import { Backoff, RetryNow, abortError, sleep } from "./backoff.js";
import { checksumOfText } from "./checksum-async.js";
import { ConflictDeck } from "./conflicts.js";
import { FolioError, isTransient } from "./errors.js";
import { Emitter } from "./events.js";
import { runFeed } from "./feed-loop.js";
import type { FolioClient } from "./http.js";
import type { LineCodec } from "./line-codec.js";
import type { Conflict, LiveDocument, OpenOptions, SyncStatus, TextChange } from "./live-types.js";
import { initialState, nextStep, quiet, statusOf, transition, withSync, type LiveEvent, type LiveState, type PatchOutcome, type Step } from "./live-state.js";
import { PendingKeeper } from "./pending-keeper.js";
import { assumeApplied, type PendingEntry } from "./pending-log.js";
import { renameWithRetry } from "./rename.js";
import { untilAnswered, type RetryContext } from "./retrying.js";
import { SyncWaiters } from "./sync-waiters.js";
import { acked, conflicted, edited, followed, nextPatch, replaced, sent, unsent, type Moved, type SyncState } from "./sync-text.js";
import type { ContentConflict, ChangeFeed, Document } from "./types.js";

type Events = {
  change: [TextChange];
  title: [string];
  deleted: [];
  restored: [];
  "key-lost": [];
  conflict: [Conflict];
  error: [Error];
  status: [SyncStatus];
};

type Waiter = { resolve: () => void; reject: (error: Error) => void };

/**
 * A live document (docs/editing-protocol.md, "The client"): one patch in flight at most, and a feed
 * loop. Everything about its texts, versions and patch is one `LiveState` (live-state.ts, with the
 * texts' algebra in sync-text.ts); a single worker takes every step that changes it in turn (take a
 * patch's answer, apply a feed answer, reload, send), so no two of them interleave. Local edits are
 * taken at once from the editor, as character changes, and kept (pending-keeper.ts).
 */
export class LiveDocumentImpl implements LiveDocument {
  private state: LiveState;
  private readonly emitter = new Emitter<Events>();
  /** Feed answers for the worker, each released once applied (the feed loop then polls again). */
  private readonly feedQueue: Array<{ answer: ChangeFeed; done: () => void }> = [];
  /** Milestones waiting for the next patch, and those of the patch in flight. */
  private milestones: Waiter[] = [];
  private sentMilestones: Waiter[] = [];
  private titleText: string;
  private lastStatus: SyncStatus = "synced";
  private displayName: string | undefined;
  private wakeUp: (() => void) | undefined;
  private readonly controller = new AbortController();
  private readonly syncWaiters: SyncWaiters;
  private readonly conflicts: ConflictDeck;
  private readonly retrying: RetryContext;
  private readonly now = new RetryNow();
  private readonly keeper: PendingKeeper;

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
    this.conflicts = new ConflictDeck(this.emitter, this.controller.signal);
    this.syncWaiters = new SyncWaiters(this.controller.signal);
    this.retrying = {
      signal: this.controller.signal,
      timeoutMs: options.requestTimeoutMs ?? 30_000,
      retry: options.retry,
      failing: (failing) => this.apply({ type: "failing", loop: "patch", failing }),
      now: this.now,
    };
    const current = () => ({ sync: this.state.sync, clientId, nextSeq: this.state.nextSeq });
    this.keeper = new PendingKeeper(options.pendingStore, id, codec, current, (error) => this.emitter.emit("error", error));
    if (options.onConflict) this.emitter.on("conflict", options.onConflict);
  }

  /** Keeps the texts (`stored`: a record of this client's was read), starts the worker and the feed loop. */
  async start(stored: boolean): Promise<void> {
    await this.keeper.start(stored);
    this.updateStatus();
    void this.run();
    void runFeed({
      client: this.client,
      id: this.id,
      signal: this.controller.signal,
      waitSeconds: this.options.waitSeconds ?? 25,
      retry: this.options.retry,
      now: this.now,
      // From the last version whose event was taken: every rename and deletion is seen.
      since: () => Math.min(this.state.eventsSeen, this.state.sync.confirmed.version),
      deliver: (answer) => this.deliver(answer),
      failing: (failing, error) => {
        this.apply({ type: "failing", loop: "feed", failing });
        if (error && !isTransient(error)) this.emitter.emit("error", error);
      },
    });
  }

  get text(): string {
    return this.state.sync.local.toString();
  }
  get doc() {
    return this.state.sync.local;
  }
  get version(): number {
    return this.state.sync.confirmed.version;
  }
  get title(): string {
    return this.titleText;
  }
  get deleted(): boolean {
    return this.state.deleted;
  }
  get keyLost(): boolean {
    return this.state.keyLost;
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

  edit(changes: ChangeSet | readonly TextEdit[]): void {
    if (this.closed) return;
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
    return new Promise((resolve, reject) => {
      this.milestones.push({ resolve, reject });
      this.updateStatus();
      this.wake();
    });
  }

  async rename(title: string): Promise<void> {
    const renamed = await renameWithRetry(this.client, this.id, this.retrying, this.codec.encodeTitle(title), this.version);
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
    for (const waiter of [...this.milestones.splice(0), ...this.sentMilestones.splice(0)]) waiter.reject(abortError());
    this.feedQueue.splice(0).forEach((item) => item.done());
    void this.keeper.close();
    this.wake();
  }

  // ---- the worker ------------------------------------------------------------------------------

  private async run(): Promise<void> {
    const backoff = new Backoff(this.options.retry);
    while (!this.closed) {
      try {
        await this.step(nextStep(this.state, { feedQueued: () => this.feedQueue.length > 0, milestoneWaiting: () => this.milestones.length > 0 }));
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
        return this.take(step.outcome);
      case "apply-feed": {
        const feed = this.feedQueue.shift()!;
        return this.applyFeed(feed.answer).finally(feed.done);
      }
      case "reload":
        return this.reload();
      case "resend":
        return this.request();
      case "send":
        return this.send();
      case "wait":
        return this.idle();
      case "stop":
        return;
    }
  }

  /** The pending edits (and a waiting milestone) as the next patch, kept before it goes out. */
  private async send(): Promise<void> {
    const { confirmed } = this.state.sync;
    const checksum = confirmed.checksum ?? (await checksumOfText(joinLines(confirmed.wire)));
    if (this.closed) return;
    const sync = { ...this.state.sync, confirmed: { ...this.state.sync.confirmed, checksum } };
    this.sentMilestones = this.milestones.splice(0);
    const fields = { checksum, clientId: this.clientId, seq: this.state.nextSeq, displayName: this.displayName, milestone: this.sentMilestones.length > 0 };
    const inflight = nextPatch(sync, this.codec, fields);
    this.state = withSync(this.state, sent(sync, inflight));
    await this.keeper.changed({ sent: inflight.request });
    return this.request();
  }

  /** Sends the patch in flight until it has an answer, the same body (same seq) on every attempt, beside the worker. */
  private request(): void {
    const request = this.state.sync.inflight!.request;
    this.apply({ type: "sent" });
    const answered = (outcome: PatchOutcome) => {
      this.apply({ type: "answered", outcome });
      this.wake();
    };
    untilAnswered(this.retrying, (signal) => this.client.patchContent(this.id, request, signal)).then(
      (answer) => answered({ answer }),
      (error: unknown) => answered({ error }),
    );
  }

  private async take(outcome: PatchOutcome): Promise<void> {
    const before = this.state.sync;
    const base = before.inflight!.request.baseVersion;
    this.apply({ type: "taken" });
    if ("error" in outcome) return this.refused(outcome.error);
    const { answer } = outcome;
    if (answer.status === 409) {
      this.milestones.unshift(...this.sentMilestones.splice(0));
      return this.conflict(before, answer.conflict);
    }
    const moved = acked(before, this.codec, answer.result);
    for (const waiter of this.sentMilestones.splice(0)) waiter.resolve();
    if ("unusable" in moved) {
      this.emitter.emit("error", new Error(`${moved.unusable}; reloading`));
      return this.reloadAfter(assumeApplied(before), { assumed: true });
    }
    // Right after the base, with every event up to it seen: this version's event is this patch's.
    if (answer.result.version === base + 1 && this.state.eventsSeen >= base) this.apply({ type: "seen", version: answer.result.version });
    await this.moveTo(moved, { acked: answer.result });
  }

  /** A 4xx other than a 409 ContentConflict: the patch was not applied, its edits are pending again. */
  private async refused(error: unknown): Promise<void> {
    const status = error instanceof FolioError ? error.status : 0;
    this.state = withSync(this.state, unsent(this.state.sync));
    await this.keeper.changed({ unsent: true });
    this.milestones.unshift(...this.sentMilestones.splice(0));
    // 422 counts one more in a row, 404 marks the document deleted, 400, 413, … park the edits.
    this.apply({ type: "refused", status });
    if (status === 422) {
      // The base is unknown or not what the service holds: reload, then send the edits again.
      if (this.state.unprocessable > 1) await sleep(new Backoff(this.options.retry).next(), this.controller.signal);
      this.apply({ type: "reload-wanted" });
    } else if (status !== 404) {
      // 409 problem: a seq used before with another body; the next patch has a fresh seq.
      if (status !== 409) for (const waiter of this.milestones.splice(0)) waiter.reject(error as Error);
      this.emitter.emit("error", error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A 409 ContentConflict: merged by default; with `conflicts: "ask"` and a listener, the listener chooses. */
  private async conflict(before: SyncState, conflict: ContentConflict): Promise<void> {
    const merged = conflicted(before, this.codec, conflict);
    if ("unusable" in merged) {
      this.emitter.emit("error", new Error(`${merged.unusable}; reloading`));
      return this.reloadAfter(unsent(before), { unsent: true });
    }
    let choice: "theirs" | "mine" | undefined;
    let mine: string[] = [];
    if (this.options.conflicts === "ask" && this.emitter.count("conflict") > 0) {
      const ops = validateOps(conflict.opsSinceBase);
      const from = before.confirmed.text.toJSON();
      mine = mergeMineWins(from, before.local.toJSON(), merged.state.confirmed.text.toJSON(), ops.ok ? this.codec.decodeOps(ops.ops) : []);
      this.updateStatus("conflict");
      choice = await this.conflicts.ask(merged.state.confirmed.text.toString(), () => joinLines(mine), conflict.currentVersion);
    }
    if (choice === undefined) return this.moveTo(merged, { conflicted: conflict });
    this.state = withSync(this.state, merged.state);
    await this.keeper.changed({ conflicted: conflict });
    const pending = chosenEdits(merged.state, choice, mine);
    await this.moveTo(resolvedTo(merged.state, pending, before), { resolved: pending.toJSON() });
  }

  private async applyFeed(answer: ChangeFeed): Promise<void> {
    let titleStale = false;
    for (const event of answer.events) {
      if (event.version <= this.state.eventsSeen) continue;
      this.apply({ type: "seen", version: event.version });
      if (event.changeType === "RENAMED" && event.title !== undefined) this.setTitle(this.codec.decodeTitle(event.title));
      else if (event.changeType === "DELETED") this.apply({ type: "deleted" });
      else if (event.changeType === "RESTORED" || event.changeType === "ROLLED_BACK") titleStale = true;
      if (event.changeType === "RESTORED") this.apply({ type: "restored" });
    }
    const { sync } = this.state;
    const version = answer.currentVersion;
    if (version > sync.confirmed.version && answer.content !== undefined) {
      await this.moveTo(replaced(sync, this.codec, splitLines(answer.content), version), { replaced: { text: answer.content, version } });
    } else if (version > sync.confirmed.version && answer.fromVersion === sync.confirmed.version && answer.ops) {
      // (An answer from another version than the confirmed one only brought events: the feed asks on.)
      const ops = validateOps(answer.ops);
      const moved = ops.ok ? followed(sync, this.codec, ops.ops, version) : undefined;
      if (moved) await this.moveTo(moved, { followed: { ops: answer.ops, version } });
      else this.apply({ type: "reload-wanted" });
    }
    if (titleStale) await this.readTitle();
  }

  /** GET the document and move onto it. */
  private async reload(): Promise<void> {
    this.apply({ type: "reloading" });
    const document = await this.read();
    if (!document) return;
    this.apply({ type: "restored" });
    this.apply({ type: "seen", version: document.version });
    this.setTitle(this.codec.decodeTitle(document.title));
    await this.moveTo(replaced(this.state.sync, this.codec, splitLines(document.content), document.version), { replaced: { text: document.content, version: document.version } });
  }

  private async reloadAfter(sync: SyncState, entry: PendingEntry): Promise<void> {
    this.state = withSync(this.state, sync);
    await this.keeper.changed(entry);
    this.apply({ type: "reload-wanted" });
  }

  /** The document as the service has it now; undefined (and marked deleted) on a 404. */
  private async read(): Promise<Document | undefined> {
    try {
      return await untilAnswered(this.retrying, (signal) => this.client.getDocument(this.id, signal));
    } catch (error) {
      if (!(error instanceof FolioError) || error.status !== 404) throw error;
      this.apply({ type: "deleted" });
      return undefined;
    }
  }

  private async readTitle(): Promise<void> {
    const document = await this.read();
    if (document) this.setTitle(this.codec.decodeTitle(document.title));
  }

  /** Takes a step of the texts: kept, then shown; lines that do not open make the key be checked. */
  private async moveTo(moved: Moved, entry: PendingEntry): Promise<void> {
    const before = this.state.sync;
    this.state = withSync(this.state, moved.state);
    await this.keeper.changed(entry);
    if (!moved.remote.empty) {
      const edits = editsOf(moved.remote);
      const mapCursorThrough = (pos: number) => mapCursor(before.local, moved.remote, pos, ownBefore(before.own, ChangeSet.empty(before.local.length)));
      this.emitter.emit("change", { origin: "remote", changes: moved.remote, edits, version: moved.state.confirmed.version, mapCursor: mapCursorThrough });
      if (this.codec.encrypted && edits.some((edit) => edit.insert.split("\n").some((line) => this.codec.isUnreadable(line)))) await this.checkKey();
    }
    this.updateStatus();
  }

  /** Lines that do not open came in: when the title does not open either, the key changed and nothing more is sent. */
  private async checkKey(): Promise<void> {
    const document = await this.read();
    if (!document || !this.codec.isUnreadable(this.codec.decodeTitle(document.title))) return;
    this.apply({ type: "key-lost" });
    this.emitter.emit("key-lost");
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

  /** Queues a feed answer for the worker; the feed loop polls again once it is applied. */
  private deliver(answer: ChangeFeed): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.apply({ type: "announced", version: answer.currentVersion });
    return new Promise((done) => {
      this.feedQueue.push({ answer, done });
      this.wake();
    });
  }

  private isSynced(): boolean {
    return quiet(this.state) && this.feedQueue.length === 0 && this.milestones.length === 0 && this.state.sync.confirmed.version >= this.state.announced;
  }

  /** Changes the state (live-state.ts) and tells the listeners of a deletion, a restore and the status. */
  private apply(event: LiveEvent): void {
    const deleted = this.state.deleted;
    this.state = transition(this.state, event);
    if (this.state.deleted !== deleted) this.emitter.emit(deleted ? "restored" : "deleted");
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
