import type { Store } from "../storage/store.js";
import type { ChangeHub } from "./change-hub.js";
import { ChangesSince, type ChangeFeedView } from "./changes-since.js";
import type { Clock } from "./clock.js";
import type { HeadTexts } from "./document-text.js";
import { FeedReads } from "./feed-reads.js";
import type { HistoryPolicy } from "./history-policy.js";
import { KeptDiffs } from "./caches/kept-diffs.js";
import type { ServiceEvents } from "./observer.js";
import { SharedReads } from "./caches/shared-reads.js";

export type { ChangeEventView, ChangeFeedView } from "./changes-since.js";

/**
 * How the transport tells the feed that the client went away: `gone` turns true and `onGone`, which
 * the feed sets while it waits, is called. A plain object, far lighter per waiting request than an
 * AbortController.
 */
export interface Departure {
  readonly gone: boolean;
  onGone?: () => void;
}

export interface ChangeFeedOptions {
  store: Store;
  texts: HeadTexts;
  policy: HistoryPolicy;
  hub: ChangeHub;
  clock: Clock;
  maxWaitSeconds: number;
  events?: ServiceEvents;
}

/**
 * The long-polling change feed. It works on the history, not on the live document: a deleted
 * document still delivers its DELETED event. A request with nothing new waits on the hub until a
 * change wakes it or its time runs out. Whether a poll reads the store, and which read it shares,
 * is decided in one place (feed-reads.ts); this loop only carries it out.
 */
export class ChangeFeed {
  private readonly reads: FeedReads<ChangeFeedView>;
  private readonly sharing: SharedReads<ChangeFeedView>;

  constructor(private readonly options: ChangeFeedOptions) {
    const kept = new KeptDiffs<ChangeFeedView>(options.clock, options.policy);
    const changes = new ChangesSince(options.store, options.texts, kept);
    this.reads = new FeedReads(options.hub, kept);
    this.sharing = new SharedReads((id, since) => changes.read(id, since));
  }

  /** The changes since `since`, waiting up to `waitSeconds` (clamped) for one; `undefined` means none (204). */
  async changes(id: string, since: number, waitSeconds: number, departure?: Departure): Promise<ChangeFeedView | undefined> {
    const answer = await this.answer(id, since, waitSeconds, departure);
    this.options.events?.feedAnswer(answer === undefined ? "none" : answer.ops ? "ops" : "content");
    return answer;
  }

  private async answer(id: string, since: number, waitSeconds: number, departure?: Departure): Promise<ChangeFeedView | undefined> {
    const { hub, clock } = this.options;
    const deadline = clock.now() + Math.min(waitSeconds, this.options.maxWaitSeconds) * 1000;
    // The version the last wake-up was for; undefined until the first.
    let wokenFor: number | undefined;
    for (;;) {
      const remaining = deadline - clock.now();
      const mayWait = remaining > 0 && !departure?.gone;
      const step = this.reads.next(id, since, mayWait, wokenFor);
      if (step.kind === "kept") return step.answer;
      // Registered before the read, so that a commit between the read and the wait is not missed.
      const wait = mayWait ? hub.wait(id, since, remaining) : undefined;
      if (wait && departure) departure.onGone = wait.cancel;
      let answer: ChangeFeedView | undefined;
      try {
        if (step.kind === "shared") answer = await this.sharing.shared(id, since, step.version);
        else if (step.kind === "joined") answer = await this.sharing.joined(id, since);
        // "wait" reads nothing; only a poll that may wait is told to, so `wait` is registered.
      } catch (error) {
        wait?.cancel();
        throw error;
      }
      if (answer || !wait) {
        wait?.cancel();
        return answer;
      }
      const reason = await wait.reason;
      if (reason.kind !== "changed") return undefined;
      this.options.events?.feedWakeup();
      wokenFor = reason.version;
    }
  }
}
