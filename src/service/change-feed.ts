import type { Store } from "../storage/store.js";
import type { ChangeHub, WakeReason } from "./change-hub.js";
import { ChangesSince, type ChangeFeedView } from "./changes-since.js";
import type { Clock } from "./clock.js";
import type { HeadTexts } from "./document-text.js";
import { FeedReads } from "./feed-reads.js";
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
  hub: ChangeHub;
  clock: Clock;
  maxWaitSeconds: number;
  events?: ServiceEvents;
}

/**
 * Told once, when a poll ends: with its answer (`undefined`: nothing new, 204) or with why it failed.
 * It must not throw: it is called from the hub's wake-up and from a read's settlement.
 */
export type PollDone = (error: Error | undefined, answer: ChangeFeedView | undefined) => void;

/**
 * One poll under way: what the feed's loop needs between its steps. A poll is held for as long as
 * a long poll waits, so its state is this one object and one wait in the hub, not async functions
 * suspended on promises (each of those is held too, and the young generation copies all of it:
 * docs/architecture.md, "The long-poll path").
 */
class Poll {
  /** The version the last wake-up was for; undefined until the first. */
  wokenFor: number | undefined;
  /** Ends the current wait in the hub; undefined when the poll may not wait. */
  cancel: (() => void) | undefined;
  /** A store read is under way: a wake-up that comes meanwhile is kept in `woke` until it ends. */
  reading = false;
  woke: WakeReason | undefined;
  finished = false;
  /** Handed to the hub for every wait of this poll. */
  readonly wake: (reason: WakeReason) => void;

  constructor(
    readonly id: string,
    readonly since: number,
    readonly deadline: number,
    readonly departure: Departure | undefined,
    readonly done: PollDone,
    onWake: (poll: Poll, reason: WakeReason) => void,
  ) {
    this.wake = (reason) => onWake(this, reason);
  }
}

/**
 * The long-polling change feed. It works on the history, not on the live document: a deleted
 * document still delivers its DELETED event. A request with nothing new waits on the hub until a
 * change wakes it or its time runs out. Whether a poll reads the store, and which read it shares,
 * is decided in one place (feed-reads.ts); this loop only carries it out: {@link step} on arrival
 * and after each wake-up, {@link readDone} when its read ends, {@link woken} when its wait ends.
 */
export class ChangeFeed {
  private readonly reads: FeedReads;
  private readonly sharing: SharedReads<ChangeFeedView>;
  private readonly onWake = (poll: Poll, reason: WakeReason) => this.woken(poll, reason);

  constructor(private readonly options: ChangeFeedOptions) {
    const changes = new ChangesSince(options.store, options.texts);
    this.reads = new FeedReads(options.hub);
    this.sharing = new SharedReads((id, since) => changes.read(id, since));
  }

  /** The changes since `since`, waiting up to `waitSeconds` (clamped) for one; `undefined` means none (204). */
  changes(id: string, since: number, waitSeconds: number, departure?: Departure): Promise<ChangeFeedView | undefined> {
    return new Promise((resolve, reject) => this.poll(id, since, waitSeconds, departure, (error, answer) => (error === undefined ? resolve(answer) : reject(error))));
  }

  /** {@link changes}, told to `done` instead of a promise: what the feed route holds while it waits. */
  poll(id: string, since: number, waitSeconds: number, departure: Departure | undefined, done: PollDone): void {
    const deadline = this.options.clock.now() + Math.min(waitSeconds, this.options.maxWaitSeconds) * 1000;
    this.attempt(new Poll(id, since, deadline, departure, done, this.onWake));
  }

  /** A step that throws fails the poll (after ending its wait), as a rejection would. */
  private attempt(poll: Poll, woken = false): void {
    try {
      if (woken) this.options.events?.feedWakeup();
      this.step(poll);
    } catch (error) {
      this.fail(poll, error);
    }
  }

  private step(poll: Poll): void {
    const remaining = poll.deadline - this.options.clock.now();
    const mayWait = remaining > 0 && !poll.departure?.gone;
    const step = this.reads.next(poll.id, poll.since, mayWait, poll.wokenFor);
    poll.reading = true;
    poll.woke = undefined;
    // Registered before the read, so that a commit between the read and the wait is not missed.
    poll.cancel = mayWait ? this.options.hub.wait(poll.id, poll.since, remaining, poll.wake) : undefined;
    if (poll.cancel && poll.departure) poll.departure.onGone = poll.cancel;
    // "wait" reads nothing; only a poll that may wait is told to, so a wait is registered.
    if (step.kind === "wait") return this.readDone(poll, undefined);
    const read = step.kind === "shared" ? this.sharing.shared(poll.id, poll.since, step.version) : this.sharing.joined(poll.id, poll.since);
    read.then(
      (answer) => this.readDone(poll, answer),
      (error: unknown) => this.fail(poll, error),
    );
  }

  private readDone(poll: Poll, answer: ChangeFeedView | undefined): void {
    poll.reading = false;
    if (answer || !poll.cancel) {
      poll.cancel?.();
      return this.finish(poll, undefined, answer);
    }
    if (poll.woke) this.woken(poll, poll.woke);
  }

  private woken(poll: Poll, reason: WakeReason): void {
    if (poll.finished) return;
    if (poll.reading) {
      poll.woke = reason;
      return;
    }
    if (reason.kind !== "changed") return this.finish(poll, undefined, undefined);
    poll.wokenFor = reason.version;
    this.attempt(poll, true);
  }

  private fail(poll: Poll, error: unknown): void {
    poll.cancel?.();
    this.finish(poll, asError(error), undefined);
  }

  /** Tells the poll's `done` once, whatever happens (an observer that throws fails the poll instead). */
  private finish(poll: Poll, error: Error | undefined, answer: ChangeFeedView | undefined): void {
    if (poll.finished) return;
    poll.finished = true;
    try {
      if (error === undefined) this.options.events?.feedAnswer(answer === undefined ? "none" : answer.ops ? "ops" : "content");
    } catch (thrown) {
      return poll.done(asError(thrown), undefined);
    }
    poll.done(error, answer);
  }
}

/** What a poll fails with: the error thrown, or one that carries a thrown non-error as its cause. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error("the change feed failed", { cause: error });
}
