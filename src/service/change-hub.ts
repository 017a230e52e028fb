import { systemClock, type Clock, type Timer } from "./clock.js";

/** Why a wait ended; `version` 0 means a wake-all after lost notices (re-read, nothing shared). */
export type WakeReason = { kind: "changed"; version: number } | { kind: "timeout" } | { kind: "closed" } | { kind: "aborted" };

/** How many documents' newest notified versions the hub remembers (the oldest noted is forgotten first). */
export const KNOWN_HEADS = 10_000;

/** One wait in the hub: why it ended, once it ends, and how to end it early. */
export interface HubWait {
  /** Settles once, with why the wait ended (never rejects). */
  readonly woken: Promise<WakeReason>;
  /** Ends the wait early (`woken` settles with "aborted"); once it ended, does nothing. */
  cancel(): void;
}

const TIMEOUT: WakeReason = { kind: "timeout" };
const CLOSED: WakeReason = { kind: "closed" };
const ABORTED: WakeReason = { kind: "aborted" };

/** What {@link ChangeHub.wait} returns for a wait the closed hub refuses: ended already. */
const REFUSED: HubWait = { woken: Promise.resolve(CLOSED), cancel: () => undefined };

/** What the hub and its waiters share: the waits under way by document, and how many timers they hold. */
interface HubState {
  readonly waiters: Map<string, Set<Waiter>>;
  timers: number;
}

/**
 * One wait: an entry in its document's set, a timer, and the abort listener on its signal, all gone
 * when it ends. Itself the listener (`handleEvent`), so that a wait on a signal costs no closure.
 */
class Waiter implements HubWait {
  readonly woken: Promise<WakeReason>;
  private resolve!: (reason: WakeReason) => void;
  private readonly timer: Timer;

  constructor(
    /** The newest version the waiting client has: a commit at or below it is no news to it. */
    readonly since: number,
    private readonly documentId: string,
    private readonly set: Set<Waiter>,
    private readonly state: HubState,
    clock: Clock,
    timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.woken = new Promise((resolve) => (this.resolve = resolve));
    this.timer = clock.timer(timeoutMs, () => this.settle(TIMEOUT));
    state.timers++;
    set.add(this);
    signal?.addEventListener("abort", this);
  }

  settle(reason: WakeReason): void {
    if (!this.set.delete(this)) return;
    if (this.set.size === 0 && this.state.waiters.get(this.documentId) === this.set) this.state.waiters.delete(this.documentId);
    this.timer.cancel();
    this.state.timers--;
    this.signal?.removeEventListener("abort", this);
    this.resolve(reason);
  }

  cancel(): void {
    this.settle(ABORTED);
  }

  /** The signal aborted. */
  handleEvent(): void {
    this.settle(ABORTED);
  }
}

/**
 * Wakes the waiters of one document when it changes. A wake is only a hint that the store has
 * something new; the waiters then read the store (how they share that read: feed-reads.ts). Each
 * wait holds one timer and one set entry, both gone when it ends (answer, timeout, abort or
 * shutdown); nothing polls the database.
 */
export class ChangeHub {
  private readonly state: HubState = { waiters: new Map(), timers: 0 };
  private readonly waiters = this.state.waiters;
  /**
   * Documents woken within their window: the window began with a wake-up to `base`, and commits
   * meanwhile are gathered into `version` (see {@link notify}).
   */
  private readonly windows = new Map<string, { base: number; version: number; timer: Timer }>();
  /** The newest version noticed per document since the last {@link wakeAll} (see {@link knownVersion}). */
  private readonly heads = new Map<string, number>();
  private closed = false;

  private readonly msPerWaiter: number;
  private readonly maxCoalesceMs: number;
  private readonly clock: Clock;

  /**
   * @param options.msPerWaiter how long a document's wake-up waits per waiting request, to gather the
   *   commits that follow; 0.2 ms by default: nothing for a few waiters, 200 ms for 1,000.
   * @param options.maxCoalesceMs the longest such wait (250 ms by default).
   * @param options.clock the time for those waits and for the waiters' timeouts.
   */
  constructor(options: { msPerWaiter?: number; maxCoalesceMs?: number; clock?: Clock } = {}) {
    this.msPerWaiter = options.msPerWaiter ?? 0.2;
    this.maxCoalesceMs = options.maxCoalesceMs ?? 250;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Registers a wait, at once, until `documentId` changes past `since`, `timeoutMs` passes, the
   * wait is cancelled, `signal` aborts or the hub closes; `woken` then settles with the reason (what
   * awaits it goes on in a microtask, so that it may wait again at once: the hub is not in the middle
   * of a wake-up loop then, and the window a notice opens is open). Register before reading the
   * store, so that no commit falls between the two.
   */
  wait(documentId: string, since: number, timeoutMs: number, signal?: AbortSignal): HubWait {
    if (this.closed) return REFUSED;
    let waiters = this.waiters.get(documentId);
    if (!waiters) {
      waiters = new Set();
      this.waiters.set(documentId, waiters);
    }
    const waiter = new Waiter(since, documentId, waiters, this.state, this.clock, timeoutMs, signal);
    if (signal?.aborted) waiter.cancel();
    return waiter;
  }

  /**
   * A commit of `documentId` at `version` happened: wake that document's waiters that do not have
   * it yet (a notice that arrives late, after the waiter read that version, wakes nobody).
   */
  notify(documentId: string, version: number): void {
    this.note(documentId, version);
    const set = this.waiters.get(documentId);
    if (!set) return;
    // Every answer costs a response per waiter. A commit after a quiet spell wakes at once; the
    // commits of the window that follows (growing with the number of waiters) are gathered and
    // woken together at its end, so under a stream of commits one answer carries several of them
    // and the waiters it wakes share one `since`, and so one read, next time. A waiter that
    // registers meanwhile reads the store after registering, so it misses nothing.
    const open = this.windows.get(documentId);
    if (open) {
      open.version = Math.max(open.version, version);
      return;
    }
    const windowMs = Math.min(this.maxCoalesceMs, set.size * this.msPerWaiter);
    this.wake(documentId, version);
    if (windowMs >= 1) this.openWindow(documentId, version, windowMs);
  }

  /**
   * Whether what is new to a client at `since` is only what the document's open window gathers,
   * and the window's end will wake a waiter at `since`: the window began by waking everybody
   * before its first version, so a client at or past that version was answered (or is as far)
   * and, like the waiters, gets the gathered commits at the window's end. Such a request waits
   * for it instead of being answered at once.
   */
  gathers(documentId: string, since: number): boolean {
    const window = this.windows.get(documentId);
    return window !== undefined && since >= window.base && since < window.version;
  }

  /**
   * The newest version of `documentId` this hub was told about since notices were last possibly
   * lost, or `undefined`. Every commit is noticed after it is durable, so the store's head is at
   * least this version; when it is further on, the notice of that commit is still on its way and
   * will wake the waiters that do not have it (or, when lost, the reset wakes them all and this
   * knowledge is dropped). A waiter whose `since` is this version may therefore wait without reading
   * the store first.
   */
  knownVersion(documentId: string): number | undefined {
    return this.heads.get(documentId);
  }

  private note(documentId: string, version: number): void {
    const known = this.heads.get(documentId);
    if (known !== undefined && known >= version) return;
    // Re-inserted, so that the documents noticed longest ago are the first forgotten.
    if (known !== undefined) this.heads.delete(documentId);
    this.heads.set(documentId, version);
    if (this.heads.size > KNOWN_HEADS) this.heads.delete(this.heads.keys().next().value!);
  }

  private openWindow(documentId: string, base: number, windowMs: number): void {
    const window = {
      base,
      version: 0,
      timer: this.clock.timer(windowMs, () => {
        this.windows.delete(documentId);
        if (window.version > 0) this.notify(documentId, window.version);
      }),
    };
    this.windows.set(documentId, window);
  }

  private wake(documentId: string, version: number): void {
    const set = this.waiters.get(documentId);
    if (!set) return;
    const reason: WakeReason = { kind: "changed", version };
    for (const waiter of [...set]) if (waiter.since < version) waiter.settle(reason);
  }

  /** Notifications may have been lost: forget the versions noticed and wake every waiter to re-read the store. */
  wakeAll(): void {
    this.heads.clear();
    for (const [documentId, set] of [...this.waiters]) {
      const reason: WakeReason = { kind: "changed", version: 0 };
      for (const waiter of [...set]) waiter.settle(reason);
      this.waiters.delete(documentId);
    }
  }

  /** Ends every wait at once and refuses new ones (shutdown). */
  close(): void {
    this.closed = true;
    for (const window of this.windows.values()) window.timer.cancel();
    this.windows.clear();
    for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.settle(CLOSED);
  }

  /** For tests and metrics: waits under way and timers they hold. */
  stats(): { documents: number; waiters: number; timers: number } {
    let waiters = 0;
    for (const set of this.waiters.values()) waiters += set.size;
    return { documents: this.waiters.size, waiters, timers: this.state.timers };
  }
}
