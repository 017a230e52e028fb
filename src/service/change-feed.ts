import type { Store } from "../storage/store.js";
import type { ChangeHub } from "./change-hub.js";
import { ChangesSince, type ChangeFeedView } from "./changes-since.js";
import type { Clock } from "./clock.js";
import type { HeadTexts } from "./document-text.js";
import { FeedReads } from "./feed-reads.js";
import type { ServiceEvents } from "./observer.js";
import { SharedReads } from "./caches/shared-reads.js";

export type { ChangeEventView, ChangeFeedView } from "./changes-since.js";

export interface ChangeFeedOptions {
  store: Store;
  texts: HeadTexts;
  hub: ChangeHub;
  clock: Clock;
  maxWaitSeconds: number;
  events?: ServiceEvents;
}

/** How long {@link ChangeFeed.next} may wait for a change, and what ends it early. */
export interface NextAnswerOptions {
  /** How long to wait when nothing is new (clamped by service.feed.max-wait-seconds); 0: answer at once. */
  waitSeconds: number;
  /** Ends the wait at once when it aborts (the client went away, the stream ended): `undefined`, as at the deadline. */
  signal?: AbortSignal | undefined;
}

/**
 * The change feed, for the long poll and the event stream alike. It works on the history, not on
 * the live document: a deleted document still delivers its DELETED event. A request with nothing
 * new waits on the hub until a change wakes it, its time runs out or its signal aborts. Whether a
 * request reads the store, and which read it shares, is decided in one place (feed-reads.ts);
 * {@link next} only carries it out, once on arrival and once after each wake-up.
 */
export class ChangeFeed {
  private readonly reads: FeedReads;
  private readonly sharing: SharedReads<ChangeFeedView>;

  constructor(private readonly options: ChangeFeedOptions) {
    const changes = new ChangesSince(options.store, options.texts);
    this.reads = new FeedReads(options.hub);
    this.sharing = new SharedReads((id, since) => changes.read(id, since));
  }

  /** {@link next} with its options spelled out: what tests and the promise-minded callers use. */
  changes(id: string, since: number, waitSeconds: number, signal?: AbortSignal): Promise<ChangeFeedView | undefined> {
    return this.next(id, since, { waitSeconds, signal });
  }

  /**
   * The next answer for document `id` since `since`: what is new, at once when something is,
   * else as soon as a commit past `since` is (here or, on PostgreSQL, on another instance, whose
   * notice wakes the hub). `undefined` when the wait (clamped) runs out, the hub closes (shutdown)
   * or `signal` aborts; an aborted wait leaves neither a waiter nor a timer in the hub. Rejects with
   * the store's error (or the 404 of a document that never existed).
   */
  async next(id: string, since: number, { waitSeconds, signal }: NextAnswerOptions): Promise<ChangeFeedView | undefined> {
    const { clock, hub, events } = this.options;
    const deadline = clock.now() + Math.min(waitSeconds, this.options.maxWaitSeconds) * 1000;
    /** The version the last wake-up was for; undefined until the first. */
    let wokenFor: number | undefined;
    for (;;) {
      const remaining = deadline - clock.now();
      const mayWait = remaining > 0 && signal?.aborted !== true;
      const step = this.reads.next(id, since, mayWait, wokenFor);
      // Registered before the read, so that a commit between the read and the wait is not missed.
      const wait = mayWait ? hub.wait(id, since, remaining, signal) : undefined;
      let answer: ChangeFeedView | undefined;
      try {
        // "wait" reads nothing; only a request that may wait is told to, so a wait is registered.
        if (step.kind !== "wait") answer = await (step.kind === "shared" ? this.sharing.shared(id, since, step.version) : this.sharing.joined(id, since));
      } catch (error) {
        wait?.cancel();
        throw asError(error);
      }
      if (answer || !wait) {
        wait?.cancel();
        events?.feedAnswer(answer === undefined ? "none" : answer.ops ? "ops" : "content");
        return answer;
      }
      // A wake-up during the read (or the signal's abort) is kept by the promise until here.
      const reason = await wait.woken;
      if (reason.kind !== "changed") {
        events?.feedAnswer("none");
        return undefined;
      }
      wokenFor = reason.version;
      events?.feedWakeup();
    }
  }
}

/** What a poll fails with: the error thrown, or one that carries a thrown non-error as its cause. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error("the change feed failed", { cause: error });
}
