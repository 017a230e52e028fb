import { joinLines } from "../core/lines.js";
import { askChoice, chosenEdits, resolvedTo } from "./ask-conflict.js";
import { Backoff, sleep, type RetryOptions } from "./backoff.js";
import { checksumOfText } from "./checksum-async.js";
import type { ConflictDeck } from "./conflicts.js";
import type { DocumentRequests } from "./document-requests.js";
import { FolioError } from "./errors.js";
import { KeyLostError } from "./key-check.js";
import type { LineCodec } from "./line-codec.js";
import type { LiveEvent, LiveState, PatchSettlement } from "./live-state.js";
import type { Milestones } from "./milestones.js";
import { assumeApplied, type PendingEntry } from "./pending-log.js";
import { acked, conflicted, nextPatch, sent, unsent, type Moved, type SyncState } from "./sync-text.js";
import type { ContentConflict } from "./types.js";

/** What the patch cycle reads and changes of its live document (live-document.ts). */
export interface PatchHost {
  state(): LiveState;
  setSync(sync: SyncState): void;
  apply(event: LiveEvent): void;
  /** Keeps a step of the texts (pending-keeper.ts). */
  keep(entry: PendingEntry): Promise<void>;
  /** Takes a step of the texts: kept, then shown. */
  moveTo(moved: Moved, entry: PendingEntry): Promise<void>;
  /** The patch's answer came: the worker takes it. */
  answered(outcome: PatchSettlement): void;
  lostKey(): void;
  report(error: Error): void;
  /** The status says "conflict" while someone is asked. */
  asking(): void;
}

export interface PatchSettings {
  clientId: string;
  conflicts: "merge" | "ask" | undefined;
  retry: RetryOptions | undefined;
  signal: AbortSignal;
  displayName: () => string | undefined;
}

/**
 * How a live document's pending edits go out and its patch's answer comes back (docs/editing-protocol.md,
 * "The client"): the next patch built and kept before it is sent, its request running beside the
 * worker until answered, and the answer taken: a 200 moves the texts over what came before it, a
 * 409 merges (or asks), any other refusal puts the edits back as pending. It holds no state: the
 * texts, versions and phase are the live document's LiveState.
 */
export class PatchCycle {
  constructor(
    private readonly host: PatchHost,
    private readonly requests: DocumentRequests,
    private readonly milestones: Milestones,
    private readonly deck: ConflictDeck,
    private readonly codec: LineCodec,
    private readonly settings: PatchSettings,
  ) {}

  /** The pending edits (and the waiting milestones) as the next patch, kept before it goes out. */
  async send(): Promise<void> {
    const { confirmed } = this.host.state().sync;
    const checksum = confirmed.checksum ?? (await checksumOfText(joinLines(confirmed.wire)));
    if (this.settings.signal.aborted) return;
    const sync = { ...this.host.state().sync, confirmed: { ...confirmed, checksum } };
    const fields = { checksum, clientId: this.settings.clientId, seq: this.host.state().nextSeq, displayName: this.settings.displayName(), milestone: this.milestones.board() };
    const inflight = nextPatch(sync, this.codec, fields);
    this.host.setSync(sent(sync, inflight));
    await this.host.keep({ sent: inflight.request });
    this.request();
  }

  /** Sends the patch in flight (DocumentRequests.patch) beside the worker, which takes its answer. */
  request(): void {
    const request = this.host.state().sync.inflight!.request;
    this.host.apply({ type: "sent" });
    void this.requests.patch(request).then((outcome) => this.host.answered(outcome));
  }

  async take(outcome: PatchSettlement): Promise<void> {
    const before = this.host.state().sync;
    const base = before.inflight!.request.baseVersion;
    this.host.apply({ type: "taken" });
    if ("error" in outcome) return this.refused(outcome.error);
    const { answer } = outcome;
    if (answer.status === 409) {
      this.milestones.back();
      return this.conflict(before, answer.conflict);
    }
    const moved = acked(before, this.codec, answer.result);
    // The milestones riding on the patch are told once the document stands on its version, so
    // that whoever awaited saveMilestone reads that version (the history panel names it).
    try {
      if ("unusable" in moved) {
        this.host.report(new Error(`${moved.unusable}; reloading`));
        return await this.reloadAfter(assumeApplied(before), { assumed: true });
      }
      // Right after the base, with every event up to it seen: this version's event is this patch's.
      if (answer.result.version === base + 1 && this.host.state().eventsSeen >= base) this.host.apply({ type: "seen", version: answer.result.version });
      await this.host.moveTo(moved, { acked: answer.result });
    } finally {
      this.milestones.landed();
    }
  }

  /** No answer but an error: a 4xx other than a 409 ContentConflict, or the key lost. The edits are pending again. */
  private async refused(error: unknown): Promise<void> {
    const status = error instanceof FolioError ? error.status : 0;
    this.host.setSync(unsent(this.host.state().sync));
    await this.host.keep({ unsent: true });
    this.milestones.back();
    if (error instanceof KeyLostError) return this.host.lostKey();
    // 422 counts one more in a row, 404 marks the document deleted, 400, 413, … park the edits.
    this.host.apply({ type: "refused", status });
    if (status === 422) {
      // The base is unknown or not what the service holds: reload, then send the edits again.
      if (this.host.state().unprocessable > 1) await sleep(new Backoff(this.settings.retry).next(), this.settings.signal);
      this.host.apply({ type: "reload-wanted" });
    } else if (status !== 404) {
      // 409 problem: a seq used before with another body; the next patch has a fresh seq.
      const reported = error instanceof Error ? error : new Error(String(error));
      if (status !== 409) this.milestones.fail(reported);
      this.host.report(reported);
    }
  }

  /** A 409 ContentConflict: merged by default; with `conflicts: "ask"` and a listener, the listener chooses. */
  private async conflict(before: SyncState, conflict: ContentConflict): Promise<void> {
    const merged = conflicted(before, this.codec, conflict);
    if ("unusable" in merged) {
      this.host.report(new Error(`${merged.unusable}; reloading`));
      return this.reloadAfter(unsent(before), { unsent: true });
    }
    const ask = this.settings.conflicts === "ask" && this.deck.listened;
    if (ask) this.host.asking();
    const asked = ask ? await askChoice(this.deck, this.codec, before, merged.state, conflict) : undefined;
    if (!asked) return this.host.moveTo(merged, { conflicted: conflict });
    this.host.setSync(merged.state);
    await this.host.keep({ conflicted: conflict });
    const pending = chosenEdits(merged.state, asked.choice, asked.mine);
    await this.host.moveTo(resolvedTo(merged.state, pending, before), { resolved: pending.toJSON() });
  }

  /** The texts set and kept, and the service's text to be read again. */
  private async reloadAfter(sync: SyncState, entry: PendingEntry): Promise<void> {
    this.host.setSync(sync);
    await this.host.keep(entry);
    this.host.apply({ type: "reload-wanted" });
  }
}
