import { applyOps } from "../core/apply-ops.js";
import { checksumOf } from "../core/checksum.js";
import { diffLines } from "../core/diff-lines.js";
import { joinLines, splitLines } from "../core/lines.js";
import { toLineOperation, type NormalizedOp } from "../core/normalized-op.js";
import { rebuildAfterPatch } from "../core/rebuild-rule.js";
import { validateOps } from "../core/validate-ops.js";
import { Backoff, abortError, sleep } from "./backoff.js";
import { adoptPersisted, carryOver, toPersisted, type Inflight } from "./carry-over.js";
import { ConflictDeck, type Snapshot } from "./conflicts.js";
import { FolioError, isTransient } from "./errors.js";
import { Emitter } from "./events.js";
import { runFeed } from "./feed-loop.js";
import type { FolioClient } from "./http.js";
import { ConflictDiscardedError, type Conflict, type LiveDocument, type OpenOptions, type PersistedPending, type SyncStatus, type TextChange } from "./live-types.js";
import { untilAnswered, type RetryContext } from "./retrying.js";
import { SyncWaiters } from "./sync-waiters.js";
import type { ChangeFeed, ContentPatchRequest, ContentPatchResult, Document } from "./types.js";

type Events = {
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
 * One open document: the confirmed text (the service's, at `version`), the local text on top of
 * it, one patch in flight at most, and a feed loop. A single worker loop does every change of
 * state in turn (apply a feed answer, send a patch, reload), so no two of them ever interleave.
 * The rules are in docs/editing-protocol.md ("The client").
 */
export class LiveDocumentImpl implements LiveDocument {
  readonly emitter = new Emitter<Events>();
  private confirmed: Snapshot;
  private local: string[];
  private localText: string;
  private titleText: string;
  private isDeleted = false;
  private inflight: Inflight | undefined;
  private resend: Inflight | undefined;
  private rebaseFrom: string[] | undefined;
  private milestones: Inflight["milestones"] = [];
  private readonly feedQueue: Array<{ answer: ChangeFeed; done: () => void }> = [];
  private announced = 0;
  private eventsSeen: number;
  private reloadWanted = false;
  private parked = false;
  private unprocessable = 0;
  private patchFailing = false;
  private feedFailing = false;
  private lastStatus: SyncStatus = "synced";
  private nextSeq: number;
  private displayName: string | undefined;
  private wakeUp: (() => void) | undefined;
  private readonly syncWaiters: SyncWaiters;
  private readonly controller = new AbortController();
  private readonly conflicts: ConflictDeck;
  private readonly timeoutMs: number;
  private readonly retrying: RetryContext;

  constructor(
    private readonly client: FolioClient,
    readonly id: string,
    document: Document,
    readonly clientId: string,
    private readonly options: OpenOptions,
    persisted: PersistedPending | undefined,
  ) {
    this.confirmed = { version: document.version, lines: splitLines(document.content) };
    this.local = this.confirmed.lines;
    this.localText = joinLines(this.local);
    this.titleText = document.title;
    this.eventsSeen = document.version;
    this.displayName = options.displayName;
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.nextSeq = persisted && persisted.clientId === clientId ? persisted.nextSeq : 1;
    this.conflicts = new ConflictDeck(this.emitter, this.controller.signal);
    this.syncWaiters = new SyncWaiters(this.controller.signal);
    this.retrying = {
      signal: this.controller.signal,
      timeoutMs: this.timeoutMs,
      retry: options.retry,
      failing: (failing) => this.setPatchFailing(failing),
    };
    if (persisted) {
      this.local = splitLines(persisted.text);
      this.localText = joinLines(this.local);
      const adopted = adoptPersisted(persisted, clientId);
      if ("resend" in adopted) this.resend = adopted.resend;
      else this.rebaseFrom = adopted.rebaseFrom;
    }
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
    return this.isDeleted;
  }
  get status(): SyncStatus {
    return this.lastStatus;
  }
  get closed(): boolean {
    return this.controller.signal.aborted;
  }

  on<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  /** Starts the worker and the feed loop. */
  start(): void {
    void this.run();
    void runFeed({
      client: this.client,
      id: this.id,
      signal: this.controller.signal,
      waitSeconds: this.options.waitSeconds ?? 25,
      retry: this.options.retry,
      since: () => this.confirmed.version,
      deliver: (answer) => this.deliver(answer),
      failing: (failing, error) => {
        this.feedFailing = failing;
        if (error && !isTransient(error)) this.emitter.emit("error", error);
        this.updateStatus();
      },
    });
  }

  setText(next: string): void {
    if (this.closed) return;
    if (this.isDeleted) {
      this.emitter.emit("error", new Error("the document is deleted: it is read-only until it is restored"));
      return;
    }
    const lines = splitLines(next);
    const previousText = this.localText;
    const text = joinLines(lines);
    if (text === previousText) return;
    const ops = diffLines(this.local, lines);
    this.local = lines;
    this.localText = text;
    this.parked = false;
    this.emitter.emit("change", { origin: "local", previousText, text, ops: ops.map(toLineOperation) });
    void this.persist();
    this.updateStatus();
    this.wake();
  }

  setDisplayName(name: string | undefined): void {
    this.displayName = name;
  }

  saveMilestone(): Promise<void> {
    if (this.closed) return Promise.reject(abortError());
    return new Promise((resolve, reject) => {
      this.milestones.push({ resolve, reject });
      this.parked = false;
      this.updateStatus();
      this.wake();
    });
  }

  async rename(title: string): Promise<void> {
    const context = { ...this.retrying, failing: () => undefined };
    const attempt = (expectedVersion: number) =>
      untilAnswered(context, (signal) => this.client.renameDocument(this.id, { title, expectedVersion }, signal));
    let renamed: Document;
    try {
      renamed = await attempt(this.confirmed.version);
    } catch (error) {
      if (!(error instanceof FolioError) || error.status !== 409) throw error;
      // The version moved on (maybe by this document's own patch): once more with the current one.
      const current = await untilAnswered(context, (signal) => this.client.getDocument(this.id, signal));
      renamed = await attempt(current.version);
    }
    this.setTitle(renamed.title);
  }

  whenSynced(timeoutMs?: number): Promise<void> {
    if (this.closed) return Promise.reject(abortError());
    if (this.isSynced()) return Promise.resolve();
    return this.syncWaiters.wait(timeoutMs);
  }

  close(): void {
    if (this.closed) return;
    this.controller.abort(abortError());
    for (const waiter of [...this.milestones, ...(this.inflight?.milestones ?? []), ...(this.resend?.milestones ?? [])]) waiter.reject(abortError());
    this.milestones = [];
    this.feedQueue.splice(0).forEach((item) => item.done());
    this.wake();
  }

  // ---- the worker ------------------------------------------------------------------------------

  private async run(): Promise<void> {
    const backoff = new Backoff(this.options.retry);
    while (!this.closed) {
      try {
        const feed = this.feedQueue.shift();
        if (this.rebaseFrom) {
          const from = this.rebaseFrom;
          this.rebaseFrom = undefined;
          await this.moveBase(from, this.confirmed);
        } else if (this.reloadWanted) {
          await this.reload();
        } else if (feed) {
          try {
            await this.applyFeed(feed.answer);
          } finally {
            feed.done();
          }
        } else if (this.resend) {
          const resend = this.resend;
          this.resend = undefined;
          await this.sendPatch(resend);
        } else if (this.wantsToSend()) {
          await this.sendPatch(this.prepare());
        } else {
          this.settle();
          await new Promise<void>((resolve) => (this.wakeUp = resolve));
          this.wakeUp = undefined;
        }
        backoff.reset();
      } catch (error) {
        if (this.closed) return;
        // Only a bug or an unexpected answer gets here; report it and go on after a pause.
        this.emitter.emit("error", error instanceof Error ? error : new Error(String(error)));
        await sleep(backoff.next(), this.controller.signal).catch(() => undefined);
      }
    }
  }

  private wake(): void {
    this.wakeUp?.();
  }

  private deliver(answer: ChangeFeed): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.announced = Math.max(this.announced, answer.currentVersion);
    return new Promise((done) => {
      this.feedQueue.push({ answer, done });
      this.updateStatus();
      this.wake();
    });
  }

  private wantsToSend(): boolean {
    if (this.isDeleted || this.parked) return false;
    return this.milestones.length > 0 || this.localText !== joinLines(this.confirmed.lines);
  }

  private prepare(): Inflight {
    const base = this.confirmed;
    const ops = diffLines(base.lines, this.local);
    const milestones = this.milestones.splice(0);
    const request: ContentPatchRequest = {
      baseVersion: base.version,
      checksum: checksumOf(joinLines(base.lines)),
      clientId: this.clientId,
      seq: this.nextSeq++,
      ops: ops.map(toLineOperation),
      ...(this.displayName !== undefined ? { displayName: this.displayName } : {}),
      ...(milestones.length > 0 ? { milestone: true } : {}),
    };
    return { request, base, ops, expected: this.local, milestones };
  }

  /** Sends one patch until it has an answer; the same body (same seq) on every attempt. */
  private async sendPatch(patch: Inflight): Promise<void> {
    this.inflight = patch;
    this.updateStatus();
    await this.persist();
    let answer: Awaited<ReturnType<FolioClient["patchContent"]>>;
    try {
      answer = await untilAnswered(this.retrying, (signal) => this.client.patchContent(this.id, patch.request, signal));
    } catch (error) {
      this.inflight = undefined;
      if (this.closed) throw error;
      await this.refused(patch, error);
      await this.persist();
      return;
    }
    this.inflight = undefined;
    this.unprocessable = 0;
    if (answer.status === 200) {
      await this.accepted(patch, answer.result);
      for (const waiter of patch.milestones) waiter.resolve();
    } else {
      const since = validateOps(answer.conflict.opsSinceBase);
      const theirs = since.ok ? applyOps(patch.base.lines, since.ops) : since;
      if (!theirs.ok) throw new Error(`a 409's opsSinceBase do not fit the base: ${theirs.message}`);
      this.milestones.unshift(...patch.milestones);
      await this.conflict({ version: answer.conflict.currentVersion, lines: theirs.lines });
    }
    await this.persist();
    this.updateStatus();
  }

  /** 200: the text by the rebuild rule, checked against the answer's checksum; a mismatch reloads. */
  private async accepted(patch: Inflight, result: ContentPatchResult): Promise<void> {
    const since = validateOps(result.opsSinceBase);
    const rebuilt = since.ok ? rebuildAfterPatch(patch.base.lines, patch.ops, since.ops) : since;
    const verified = rebuilt.ok && (result.checksum === undefined || checksumOf(joinLines(rebuilt.lines)) === result.checksum);
    if (!rebuilt.ok || !verified) {
      this.emitter.emit("error", new Error(`the text after version ${result.version} could not be rebuilt exactly; reloading`));
      await this.reload(patch.expected);
      return;
    }
    // A version the confirmed text has passed already (a resend answered from its receipt after a
    // reopen) is contained in it: the history is linear.
    const target = result.version >= this.confirmed.version ? { version: result.version, lines: rebuilt.lines } : this.confirmed;
    await this.moveBase(patch.expected, target);
  }

  /** A 4xx other than 409 ContentConflict. */
  private async refused(patch: Inflight, error: unknown): Promise<void> {
    const status = error instanceof FolioError ? error.status : 0;
    this.milestones.unshift(...patch.milestones);
    if (status === 422) {
      // The base is unknown or not what the service holds: reload once and send the edits again as
      // a fresh diff; a second 422 in a row waits before the next reload.
      if (++this.unprocessable > 1) await sleep(new Backoff(this.options.retry).next(), this.controller.signal);
      await this.reload(patch.base.lines);
    } else if (status === 404) {
      this.markDeleted();
    } else if (status === 409) {
      // A seq used before with another body (a store that kept a stale patch): a fresh seq.
      this.emitter.emit("error", error as Error);
    } else {
      // 400, 413, …: this edit cannot be sent as it is. Report it and send nothing until the next edit.
      this.parked = true;
      for (const waiter of this.milestones.splice(0)) waiter.reject(error as Error);
      this.emitter.emit("error", error as Error);
    }
  }

  private async applyFeed(answer: ChangeFeed): Promise<void> {
    for (const event of answer.events) {
      if (event.version <= this.eventsSeen) continue;
      this.eventsSeen = event.version;
      if (event.changeType === "RENAMED" && event.title !== undefined) this.setTitle(event.title);
      else if (event.changeType === "DELETED") this.markDeleted();
      else if (event.changeType === "RESTORED" || event.changeType === "ROLLED_BACK") this.reloadWanted = true;
    }
    if (answer.currentVersion <= this.confirmed.version || this.reloadWanted) return;
    if (answer.content !== undefined) {
      await this.moveBase(this.confirmed.lines, { version: answer.currentVersion, lines: splitLines(answer.content) });
      return;
    }
    // A diff from a version other than the confirmed one is stale: the feed asks again.
    if (answer.fromVersion !== this.confirmed.version || answer.ops === undefined) return;
    const ops = validateOps(answer.ops);
    const next = ops.ok ? applyOps(this.confirmed.lines, ops.ops) : ops;
    if (!ops.ok || !next.ok) {
      this.reloadWanted = true;
      return;
    }
    await this.moveBase(this.confirmed.lines, { version: answer.currentVersion, lines: next.lines }, ops.ops);
  }

  /** GET the document and move onto it; `from` is the base the local edits are relative to. */
  private async reload(from: string[] = this.confirmed.lines): Promise<void> {
    this.reloadWanted = false;
    let document: Document;
    try {
      document = await untilAnswered(this.retrying, (signal) => this.client.getDocument(this.id, signal));
    } catch (error) {
      if (!(error instanceof FolioError) || error.status !== 404) throw error;
      this.markDeleted();
      return;
    }
    if (this.isDeleted) {
      this.isDeleted = false;
      this.emitter.emit("restored");
    }
    this.setTitle(document.title);
    this.eventsSeen = Math.max(this.eventsSeen, document.version);
    await this.moveBase(from, { version: document.version, lines: splitLines(document.content) });
  }

  /**
   * Makes `target` the confirmed text and carries the local edits (relative to `from`) over onto it
   * with the core algebra: the same rebase the service does to a stale patch. When they overlap
   * what changed, it is a conflict the user (or the default) decides.
   */
  private async moveBase(from: readonly string[], target: Snapshot, remoteOps?: readonly NormalizedOp[]): Promise<void> {
    const carried = carryOver(from, this.local, target.lines, remoteOps);
    if (!carried) {
      await this.conflict(target);
      return;
    }
    this.confirmed = target;
    this.replaceLocal(carried);
  }

  private async conflict(target: Snapshot): Promise<void> {
    this.updateStatus("conflict");
    const mineBefore = this.localText;
    const theirs = joinLines(target.lines);
    const choice = await this.conflicts.ask(theirs, () => this.localText, target.version);
    this.confirmed = target;
    if (choice.answered === false) this.emitter.emit("error", new ConflictDiscardedError(mineBefore, theirs));
    if (choice.choice === "theirs") this.replaceLocal(target.lines);
    this.updateStatus();
  }

  // ---- small state changes ---------------------------------------------------------------------

  private replaceLocal(lines: string[]): void {
    const previousText = this.localText;
    const text = joinLines(lines);
    const previous = this.local;
    this.local = lines;
    this.localText = text;
    if (text !== previousText) this.emitter.emit("change", { origin: "remote", previousText, text, ops: diffLines(previous, lines).map(toLineOperation) });
  }

  private setTitle(title: string): void {
    if (title === this.titleText) return;
    this.titleText = title;
    this.emitter.emit("title", title);
  }

  private markDeleted(): void {
    if (this.isDeleted) return;
    this.isDeleted = true;
    this.emitter.emit("deleted");
  }

  private setPatchFailing(failing: boolean): void {
    this.patchFailing = failing;
    this.updateStatus();
  }

  private isSynced(): boolean {
    return (
      !this.inflight &&
      !this.resend &&
      !this.rebaseFrom &&
      !this.reloadWanted &&
      this.feedQueue.length === 0 &&
      this.milestones.length === 0 &&
      this.confirmed.version >= this.announced &&
      (this.isDeleted || this.localText === joinLines(this.confirmed.lines))
    );
  }

  private settle(): void {
    this.updateStatus();
    if (!this.isSynced()) return;
    this.syncWaiters.release();
  }

  private updateStatus(force?: SyncStatus): void {
    if (this.closed) return;
    const status: SyncStatus =
      force ?? (this.conflicts.open ? "conflict" : this.patchFailing || this.feedFailing ? "offline" : this.isSynced() ? "synced" : "syncing");
    if (status === this.lastStatus) return;
    this.lastStatus = status;
    this.emitter.emit("status", status);
  }

  // ---- persistence -----------------------------------------------------------------------------

  private async persist(): Promise<void> {
    const store = this.options.pendingStore;
    if (!store || this.closed) return;
    const pending = toPersisted({
      patch: this.inflight ?? this.resend,
      confirmed: this.confirmed,
      localText: this.localText,
      clientId: this.clientId,
      nextSeq: this.nextSeq,
    });
    try {
      await store.save(this.id, pending);
    } catch (error) {
      this.emitter.emit("error", error instanceof Error ? error : new Error(String(error)));
    }
  }
}

