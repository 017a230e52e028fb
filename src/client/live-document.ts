import { joinLines, splitLines } from "../core/lines.js";
import { mergeLines } from "../core/merge-text.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import { Backoff, sleep } from "./backoff.js";
import { carryOver, mergeMineWins, newPatch, type Inflight } from "./carry-over.js";
import type { Snapshot } from "./conflicts.js";
import { DocumentState } from "./document-state.js";
import { FolioError, isTransient } from "./errors.js";
import { broughtBy, runFeed } from "./feed-loop.js";
import { appliesInFlight, mergeOfKeptOnce, rebuiltAfter, theirsOf, type PatchOutcome } from "./in-flight.js";
import { inFlight, nextStep, type Step, type Work } from "./live-state.js";
import { renameWithRetry } from "./rename.js";
import { untilAnswered } from "./retrying.js";
import type { ChangeFeed, ContentPatchResult, Document } from "./types.js";
import { snapshotOf } from "./line-codec.js";

/**
 * A live document: one patch in flight at most, and a feed loop. A single worker loop does every
 * change of state in turn (apply a feed answer, take a patch's answer, start a patch, reload), so
 * no two of them ever interleave; a patch's request runs beside it, and feed answers of other
 * people's changes are applied while it does. The rules are in docs/editing-protocol.md ("The
 * client"); the states, and the order in which the worker picks its next step, in live-state.ts.
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
      now: this.now,
      // From the last answer's version, even when this client's own patches moved it further: the
      // authors answered together ask from one version and so share one answer (the service reads,
      // composes and serializes it once). Every event after it arrives, so none is missed.
      since: () => this.feedBase.version,
      deliver: (answer) => this.deliver(answer),
      failing: (failing, error) => {
        this.apply({ type: "failing", loop: "feed", failing });
        if (error && !isTransient(error)) this.emitter.emit("error", error);
        this.updateStatus();
      },
    });
  }

  async rename(title: string): Promise<void> {
    const wire = this.codec.encodeTitle(title);
    this.setTitle(this.codec.decodeTitle((await renameWithRetry(this.client, this.id, this.retrying, wire, this.confirmed.version)).title));
  }

  // ---- the worker ------------------------------------------------------------------------------

  /** What the worker sees besides the state, for nextStep (live-state.ts). */
  private readonly work: Work = {
    feedQueued: () => this.feedQueue.length > 0,
    appliesInFlight: (patch) => {
      const versions = { confirmed: this.confirmed.version, feedBase: this.feedBase.version };
      return this.options.conflicts !== "ask" && appliesInFlight(this.feedQueue[0]!.answer, patch, this.clientId, versions);
    },
    hasEdits: () => this.hasEdits(),
    holdMs: () => this.hold.remainingMs(this.milestones.length > 0),
  };

  protected async run(): Promise<void> {
    const backoff = new Backoff(this.options.retry);
    while (!this.closed) {
      try {
        await this.step(nextStep(this.state, this.work));
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
        return this.patchAnswered(step.patch, step.outcome);
      case "rebase":
        this.apply({ type: "rebased" });
        return this.moveBase(step.from, this.confirmed);
      case "apply-feed":
        return this.nextFeed();
      case "reload":
        return this.reload();
      case "resend":
        return this.startPatch(step.patch);
      case "send":
        return this.startPatch(this.prepare());
      case "wait":
        return this.idle(step.ms);
      case "stop":
        return;
    }
  }

  private async nextFeed(): Promise<void> {
    const feed = this.feedQueue.shift()!;
    try {
      await this.applyFeed(feed.answer);
    } finally {
      feed.done();
    }
  }

  protected prepare(): Inflight {
    const milestones = this.milestones.splice(0);
    return newPatch(this.confirmed, this.local, { clientId: this.clientId, seq: this.nextSeq++, displayName: this.displayName, milestones }, this.codec);
  }

  /** Sends one patch until it has an answer, the same body (same seq) on every attempt, beside the worker. */
  protected async startPatch(patch: Inflight): Promise<void> {
    this.apply({ type: "sent", patch });
    this.updateStatus();
    await this.persist();
    const answered = (outcome: PatchOutcome) => {
      if (this.closed) return;
      this.apply({ type: "answered", patch, outcome });
      this.wake();
    };
    untilAnswered(this.retrying, (signal) => this.client.patchContent(this.id, patch.request, signal)).then(
      (answer) => answered({ answer }),
      (error: unknown) => answered({ error }),
    );
  }

  protected async patchAnswered(patch: Inflight, outcome: PatchOutcome): Promise<void> {
    this.apply({ type: "taken" });
    if ("error" in outcome) {
      await this.refused(patch, outcome.error);
      await this.persist();
      return;
    }
    const answer = outcome.answer;
    if (answer.status === 200) {
      await this.accepted(patch, answer.result);
      for (const waiter of patch.milestones) waiter.resolve();
    } else {
      const { target, ops } = theirsOf(patch, answer.conflict, this.codec);
      this.milestones.unshift(...patch.milestones);
      // The local edits (this patch's included) are relative to the confirmed text, which the feed
      // may have moved past the patch's base meanwhile, up to or beyond the 409's version.
      const from = patch.localBase ?? this.confirmed.lines;
      if (patch.localBase || target.version > this.confirmed.version) await this.conflict(from, target, from === patch.base.lines ? ops : undefined);
    }
    await this.persist();
    this.updateStatus();
  }

  /** 200: the text by the rebuild rule, checked against the answer's checksum; a mismatch reloads. */
  protected async accepted(patch: Inflight, result: ContentPatchResult): Promise<void> {
    const rebuilt = rebuiltAfter(patch, result);
    if (!rebuilt) {
      this.emitter.emit("error", new Error(`the text after version ${result.version} could not be rebuilt exactly; reloading`));
      await this.reload(patch.expected);
      return;
    }
    // A version the confirmed text has passed already (a resend answered from its receipt after a
    // reopen) is contained in it: the history is linear.
    const answered: Snapshot = snapshotOf(this.codec, result.version, rebuilt.lines, result.checksum);
    const target = result.version >= this.confirmed.version ? answered : this.confirmed;
    // Right after the base: no foreign version in between, so no event to catch up on, and the feed
    // may ask from here (a lone author's next polls ask from its own version; the poll already
    // waiting is still answered with this change, which is then stale and dropped).
    if (result.version <= patch.base.version + 1 && this.eventsSeen >= patch.base.version) this.eventsSeen = Math.max(this.eventsSeen, result.version);
    if (result.version === this.feedBase.version + 1 && patch.base.version === this.feedBase.version) this.feedBase = answered;
    // A change kept once that two people made alike: the merge that keeps both becomes what the
    // local edits stand on, and what the service lacks of it is sent next as a local edit.
    const merged = target === answered && this.options.conflicts !== "ask" ? mergeOfKeptOnce(patch, rebuilt.since) : undefined;
    if (merged) {
      this.confirmed = target;
      this.replaceLocal(mergeLines(patch.expected, merged, this.local), "early", target.lines);
      return;
    }
    await this.moveBase(patch.expected, target);
  }

  /** A 4xx other than 409 ContentConflict. */
  protected async refused(patch: Inflight, error: unknown): Promise<void> {
    const status = error instanceof FolioError ? error.status : 0;
    this.milestones.unshift(...patch.milestones);
    // 422 counts one more in a row, 404 marks the document deleted, 400, 413, … park the edits.
    this.apply({ type: "refused", status });
    if (status === 422) {
      // The base is unknown or not what the service holds: reload once and send the edits again as
      // a fresh diff; a second 422 in a row waits before the next reload.
      if (this.state.unprocessable > 1) await sleep(new Backoff(this.options.retry).next(), this.controller.signal);
      await this.reload(patch.localBase ?? this.confirmed.lines);
    } else if (status === 409) {
      // A seq used before with another body (a store that kept a stale patch): a fresh seq.
      this.emitter.emit("error", error as Error);
    } else if (status !== 404) {
      // 400, 413, …: this edit cannot be sent as it is. Report it and send nothing until the next edit.
      for (const waiter of this.milestones.splice(0)) waiter.reject(error as Error);
      this.emitter.emit("error", error as Error);
    }
  }

  protected async applyFeed(answer: ChangeFeed): Promise<void> {
    for (const event of answer.events) {
      if (event.version <= this.eventsSeen) continue;
      this.eventsSeen = event.version;
      if (event.changeType === "RENAMED" && event.title !== undefined) this.setTitle(this.codec.decodeTitle(event.title));
      else if (event.changeType === "DELETED") this.apply({ type: "deleted" });
      else if (event.changeType === "RESTORED" || event.changeType === "ROLLED_BACK") this.apply({ type: "reload-wanted" });
    }
    if (this.state.reloadDue) return;
    const brought = broughtBy(answer, this.feedBase, this.confirmed.version, this.codec);
    if (brought === "unusable") this.apply({ type: "reload-wanted" });
    if (typeof brought === "string") return;
    const { target, remoteOps } = brought;
    this.feedBase = target;
    // At or behind this client's own acknowledged patches: the text has it already.
    if (target.version <= this.confirmed.version) return;
    const patch = inFlight(this.state);
    if (patch) {
      // In flight: the patch's edits are carried onto the new text, then the edits made since it over
      // that move, so that its answer finds them relative to exactly what they were made on.
      // Both from the confirmed text, in one merge each: what both typed the same way at one point
      // is then the service's first in both, so the later edits still follow the patch's own text.
      const expected = mergeLines(this.confirmed.lines, target.lines, patch.expected);
      const local = mergeLines(this.confirmed.lines, target.lines, this.local);
      [patch.expected, this.confirmed] = [expected, target];
      this.replaceLocal(local, "early", target.lines);
      await this.persist();
      return;
    }
    // Without the service's ops from the confirmed text, the local edits are carried over a diff of the two texts.
    await this.moveBase(this.confirmed.lines, target, remoteOps);
  }

  /** GET the document and move onto it; `from` is the base the local edits are relative to. */
  protected async reload(from: string[] = this.confirmed.lines): Promise<void> {
    this.apply({ type: "reloading" });
    let document: Document;
    try {
      document = await untilAnswered(this.retrying, (signal) => this.client.getDocument(this.id, signal));
    } catch (error) {
      if (!(error instanceof FolioError) || error.status !== 404) throw error;
      this.apply({ type: "deleted" });
      return;
    }
    this.apply({ type: "restored" });
    this.setTitle(this.codec.decodeTitle(document.title));
    this.eventsSeen = Math.max(this.eventsSeen, document.version);
    this.feedBase = snapshotOf(this.codec, document.version, splitLines(document.content));
    await this.moveBase(from, this.feedBase);
  }

  /**
   * Makes `target` the confirmed text and carries the local edits (relative to `from`) over onto it:
   * merged with the service's text (mergeLines, nothing either side typed lost) or, with
   * `conflicts: "ask"`, rebased as the service rebases a stale patch, the user choosing where they overlap.
   */
  protected async moveBase(from: readonly string[], target: Snapshot, remoteOps?: readonly NormalizedOp[]): Promise<void> {
    const asking = this.options.conflicts === "ask";
    const carried = asking ? carryOver(from, this.local, target.lines, remoteOps) : mergeLines(from, target.lines, this.local);
    if (!carried) {
      await this.conflict(from, target, remoteOps);
      return;
    }
    // Without local edits the text becomes the service's; what reached it later goes after what
    // this author typed at the same point (the edits slide late).
    const unchanged = this.local.length === from.length && this.local.every((line, k) => line === from[k]);
    this.confirmed = target;
    this.replaceLocal(carried, unchanged ? "late" : "early", target.lines);
  }

  /**
   * A true overlap between the local edits (relative to `from`) and the service's text `target`. By
   * default the three texts are merged inside the lines, keeping what both sides typed; the result
   * is sent next as a fresh diff against `target`. With `conflicts: "ask"` and a listener, the user
   * chooses: "theirs" drops the local edits, "mine" puts them over the service's text, winning on
   * the contested lines only.
   */
  protected async conflict(from: readonly string[], target: Snapshot, remoteOps?: readonly NormalizedOp[]): Promise<void> {
    let choice: "theirs" | "mine" | undefined;
    if (this.options.conflicts === "ask" && this.emitter.count("conflict") > 0) {
      this.updateStatus("conflict");
      const mine = () => joinLines(mergeMineWins(from, this.local, target.lines, remoteOps));
      choice = await this.conflicts.ask(joinLines(target.lines), mine, target.version);
    }
    this.confirmed = target;
    if (choice === "theirs") this.replaceLocal(target.lines);
    else if (choice === "mine") this.replaceLocal(mergeMineWins(from, this.local, target.lines, remoteOps));
    else this.replaceLocal(mergeLines(from, target.lines, this.local), "early", target.lines);
    this.updateStatus();
  }
}
