import { applyOps } from "../core/apply-ops.js";
import { checksumOf } from "../core/checksum.js";
import { diffLines } from "../core/diff-lines.js";
import { joinLines, splitLines } from "../core/lines.js";
import { toLineOperation, type NormalizedOp } from "../core/normalized-op.js";
import { rebuildAfterPatch } from "../core/rebuild-rule.js";
import { validateOps } from "../core/validate-ops.js";
import { Backoff, sleep } from "./backoff.js";
import { carryOver, mergeMineWins, type Inflight } from "./carry-over.js";
import type { Snapshot } from "./conflicts.js";
import { DocumentState } from "./document-state.js";
import { FolioError, isTransient } from "./errors.js";
import { runFeed } from "./feed-loop.js";
import type { FolioClient } from "./http.js";
import { ConflictDiscardedError } from "./live-types.js";
import { untilAnswered } from "./retrying.js";
import type { ChangeFeed, ContentPatchRequest, ContentPatchResult, Document } from "./types.js";

/**
 * A live document: one patch in flight at most, and a feed loop. A single worker loop does every
 * change of state in turn (apply a feed answer, send a patch, reload), so no two of them ever
 * interleave. The rules are in docs/editing-protocol.md ("The client").
 */
export class LiveDocumentImpl extends DocumentState {
  /** Starts the worker and the feed loop. */
  start(): void {
    this.updateStatus();
    void this.run();
    void runFeed({
      client: this.client,
      id: this.id,
      signal: this.controller.signal,
      waitSeconds: this.options.waitSeconds ?? 25,
      retry: this.options.retry,
      // From the last answer's version, even when this client's own patches moved it further: the
      // authors answered together ask from one version and so share one answer (the service reads,
      // composes and serializes it once). Every event after it arrives, so none is missed.
      since: () => this.feedBase.version,
      deliver: (answer) => this.deliver(answer),
      failing: (failing, error) => {
        this.feedFailing = failing;
        if (error && !isTransient(error)) this.emitter.emit("error", error);
        this.updateStatus();
      },
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

  // ---- the worker ------------------------------------------------------------------------------

  protected async run(): Promise<void> {
    const backoff = new Backoff(this.options.retry);
    while (!this.closed) {
      try {
        if (this.rebaseFrom) {
          const from = this.rebaseFrom;
          this.rebaseFrom = undefined;
          await this.moveBase(from, this.confirmed);
        } else if (this.reloadWanted) {
          await this.reload();
        } else if (this.feedQueue.length > 0) {
          const feed = this.feedQueue.shift()!;
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

  protected deliver(answer: ChangeFeed): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.announced = Math.max(this.announced, answer.currentVersion);
    return new Promise((done) => {
      this.feedQueue.push({ answer, done });
      this.updateStatus();
      this.wake();
    });
  }

  protected wantsToSend(): boolean {
    if (this.isDeleted || this.parked) return false;
    return this.milestones.length > 0 || this.localText !== joinLines(this.confirmed.lines);
  }

  protected prepare(): Inflight {
    const base = this.confirmed;
    const ops = diffLines(base.lines, this.local);
    const milestones = this.milestones.splice(0);
    const request: ContentPatchRequest = {
      baseVersion: base.version,
      checksum: (base.checksum ??= checksumOf(joinLines(base.lines))),
      clientId: this.clientId,
      seq: this.nextSeq++,
      ops: ops.map(toLineOperation),
      ...(this.displayName !== undefined ? { displayName: this.displayName } : {}),
      ...(milestones.length > 0 ? { milestone: true } : {}),
    };
    return { request, base, ops, expected: this.local, milestones };
  }

  /** Sends one patch until it has an answer; the same body (same seq) on every attempt. */
  protected async sendPatch(patch: Inflight): Promise<void> {
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
      await this.conflict(patch.base.lines, { version: answer.conflict.currentVersion, lines: theirs.lines }, since.ok ? since.ops : undefined);
    }
    await this.persist();
    this.updateStatus();
  }

  /** 200: the text by the rebuild rule, checked against the answer's checksum; a mismatch reloads. */
  protected async accepted(patch: Inflight, result: ContentPatchResult): Promise<void> {
    const since = validateOps(result.opsSinceBase);
    const rebuilt = since.ok ? rebuildAfterPatch(patch.base.lines, patch.ops, since.ops) : since;
    // Verified once here; the next patch on this text sends the same checksum without hashing again.
    const verified = rebuilt.ok && (result.checksum === undefined || checksumOf(joinLines(rebuilt.lines)) === result.checksum);
    if (!rebuilt.ok || !verified) {
      this.emitter.emit("error", new Error(`the text after version ${result.version} could not be rebuilt exactly; reloading`));
      await this.reload(patch.expected);
      return;
    }
    // A version the confirmed text has passed already (a resend answered from its receipt after a
    // reopen) is contained in it: the history is linear.
    const answered: Snapshot = { version: result.version, lines: rebuilt.lines, ...(result.checksum !== undefined ? { checksum: result.checksum } : {}) };
    const target = result.version >= this.confirmed.version ? answered : this.confirmed;
    // Right after the base: no foreign version in between, so no event to catch up on, and the feed
    // may ask from here (a lone author's next polls ask from its own version; the poll already
    // waiting is still answered with this change, which is then stale and dropped).
    if (result.version <= patch.base.version + 1 && this.eventsSeen >= patch.base.version) this.eventsSeen = Math.max(this.eventsSeen, result.version);
    if (result.version === this.feedBase.version + 1 && patch.base.version === this.feedBase.version) this.feedBase = answered;
    await this.moveBase(patch.expected, target);
  }

  /** A 4xx other than 409 ContentConflict. */
  protected async refused(patch: Inflight, error: unknown): Promise<void> {
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

  protected async applyFeed(answer: ChangeFeed): Promise<void> {
    for (const event of answer.events) {
      if (event.version <= this.eventsSeen) continue;
      this.eventsSeen = event.version;
      if (event.changeType === "RENAMED" && event.title !== undefined) this.setTitle(event.title);
      else if (event.changeType === "DELETED") this.markDeleted();
      else if (event.changeType === "RESTORED" || event.changeType === "ROLLED_BACK") this.reloadWanted = true;
    }
    if (this.reloadWanted) return;
    let target: Snapshot;
    let remoteOps: NormalizedOp[] | undefined;
    if (answer.content !== undefined) {
      target = { version: answer.currentVersion, lines: splitLines(answer.content) };
    } else {
      // A diff from another version than the one asked from is stale (a reload moved it): the feed asks again.
      if (answer.fromVersion !== this.feedBase.version || answer.ops === undefined) return;
      const ops = validateOps(answer.ops);
      const next = ops.ok ? applyOps(this.feedBase.lines, ops.ops) : ops;
      if (!ops.ok || !next.ok) {
        this.reloadWanted = true;
        return;
      }
      target = { version: answer.currentVersion, lines: next.lines };
      // The service's ops carry the local edits over exactly when they start at the confirmed text.
      if (answer.fromVersion === this.confirmed.version) remoteOps = ops.ops;
    }
    this.feedBase = target;
    // At or behind this client's own acknowledged patches: the text has it already.
    if (target.version <= this.confirmed.version) return;
    // Without the service's ops from the confirmed text, the local edits are carried over a diff of the two texts.
    await this.moveBase(this.confirmed.lines, target, remoteOps);
  }

  /** GET the document and move onto it; `from` is the base the local edits are relative to. */
  protected async reload(from: string[] = this.confirmed.lines): Promise<void> {
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
    this.feedBase = { version: document.version, lines: splitLines(document.content) };
    await this.moveBase(from, { version: document.version, lines: splitLines(document.content) });
  }

  /**
   * Makes `target` the confirmed text and carries the local edits (relative to `from`) over onto it
   * with the core algebra: the same rebase the service does to a stale patch. When they overlap
   * what changed, it is a conflict the user (or the default) decides.
   */
  protected async moveBase(from: readonly string[], target: Snapshot, remoteOps?: readonly NormalizedOp[]): Promise<void> {
    const carried = carryOver(from, this.local, target.lines, remoteOps);
    if (!carried) {
      await this.conflict(from, target, remoteOps);
      return;
    }
    this.confirmed = target;
    this.replaceLocal(carried);
  }

  /**
   * A true overlap between the local edits (relative to `from`) and the service's text `target`:
   * the user (or, with no listener, the default "theirs") chooses. "mine" is the service's text with
   * the local edits over it, the local side winning on the contested lines; it is sent next as a
   * fresh diff against `target`.
   */
  protected async conflict(from: readonly string[], target: Snapshot, remoteOps?: readonly NormalizedOp[]): Promise<void> {
    this.updateStatus("conflict");
    const theirs = joinLines(target.lines);
    const mine = () => mergeMineWins(from, this.local, target.lines, remoteOps);
    const discarded = this.localText;
    const choice = await this.conflicts.ask(theirs, () => joinLines(mine()), target.version);
    this.confirmed = target;
    if (!choice.answered) this.emitter.emit("error", new ConflictDiscardedError(discarded, theirs));
    this.replaceLocal(choice.choice === "theirs" ? target.lines : mine());
    this.updateStatus();
  }
}
