import { composeChain } from "../core/compose-ops.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import type { ChangeType, Store, VersionSummary } from "../storage/store.js";
import type { ChangeHub, WakeReason } from "./change-hub.js";
import type { Clock } from "./clock.js";
import { documentNotFound } from "./documents.js";
import type { HeadTexts } from "./document-text.js";
import type { HistoryPolicy } from "./history-policy.js";
import { FeedReads } from "./feed-reads.js";
import type { ServiceEvents } from "./observer.js";

/** One recorded version as the feed reports it. */
export interface ChangeEventView {
  version: number;
  changeType: ChangeType;
  clientId?: string;
  displayName?: string;
  title?: string;
}

/** Everything since a version: the composed ops from it, or the full text when no exact diff exists. */
export interface ChangeFeedView {
  fromVersion?: number;
  currentVersion: number;
  ops?: NormalizedOp[];
  content?: string;
  events: ChangeEventView[];
}

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
 * document still delivers its DELETED event. A request with nothing new waits on the hub and,
 * once woken, reads the store; waiters woken by the same commit with the same `since` share one
 * computed answer. The commits the hub was told about spare reads: a request whose `since` is the
 * newest version noticed waits without reading the store, and a diff computed for a head answers
 * the requests with the same `since` that follow for a moment.
 */
export class ChangeFeed {
  private readonly shared = new Map<string, Promise<ChangeFeedView | undefined>>();
  /** Reads at once that requests with the same `since` may still join (see {@link joinedRead}). */
  private readonly joinable = new Map<string, Promise<ChangeFeedView | undefined>>();
  /** When a poll reads the store, and the answers that spare it (feed-reads.ts). */
  private readonly reads: FeedReads<ChangeFeedView>;

  constructor(private readonly options: ChangeFeedOptions) {
    this.reads = new FeedReads(options.hub, options.clock, options.policy);
  }

  /** The changes since `since`, waiting up to `waitSeconds` (clamped) for one; `undefined` means none (204). */
  async changes(id: string, since: number, waitSeconds: number, departure?: Departure): Promise<ChangeFeedView | undefined> {
    const answer = await this.answer(id, since, waitSeconds, departure);
    this.options.events?.feedAnswer(answer === undefined ? "none" : answer.ops ? "ops" : "content");
    return answer;
  }

  private async answer(id: string, since: number, waitSeconds: number, departure?: Departure): Promise<ChangeFeedView | undefined> {
    const { hub, clock } = this.options;
    // A diff computed already up to the newest version noticed answers at once: no wait, no read.
    const known = hub.knownVersion(id);
    const reused = known !== undefined && since < known && !this.reads.quiet(id, since) ? this.reads.reused(id, known, since) : undefined;
    if (reused) return reused;
    const deadline = clock.now() + Math.min(waitSeconds, this.options.maxWaitSeconds) * 1000;
    let woken: Extract<WakeReason, { kind: "changed" }> | undefined;
    for (;;) {
      const remaining = deadline - clock.now();
      // Registered before the read, so that a commit between the read and the wait is not missed.
      const wait = remaining > 0 && !departure?.gone ? hub.wait(id, since, remaining) : undefined;
      if (wait && departure) departure.onGone = wait.cancel;
      let answer: ChangeFeedView | undefined;
      try {
        if (woken && woken.version > since) answer = await this.sharedRead(id, since, woken);
        else if (wait && this.reads.quiet(id, since)) answer = undefined;
        else answer = await this.joinedRead(id, since);
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
      woken = reason;
    }
  }

  // Waiters woken by one commit with the same `since` share one read. The key holds the commit's
  // version, so nobody joins a read that started before the commit it was woken for.
  private sharedRead(id: string, since: number, reason: Extract<WakeReason, { kind: "changed" }>): Promise<ChangeFeedView | undefined> {
    const key = `${id}\u0000${since}\u0000${reason.version}`;
    let answer = this.shared.get(key);
    if (!answer) {
      answer = this.read(id, since).finally(() => this.shared.delete(key));
      this.shared.set(key, answer);
    }
    return answer;
  }

  // Requests that read at once with the same `since` share a read that has not yet read the head:
  // its answer is as new as the store after they all arrived, so each gets what a read of its own
  // would give. A read reads the head in the next turn of the event loop at the earliest, so the
  // requests parsed from one burst of packets (a crowd of authors polling again after one answer)
  // share it, and with it one composed diff and one serialized body, instead of each composing
  // its own diff against a head that moved a little since the one before.
  private joinedRead(id: string, since: number): Promise<ChangeFeedView | undefined> {
    const key = `${id}\u0000${since}`;
    const open = this.joinable.get(key);
    if (open) return open;
    const answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      // From here on, the head this read reads may be older than a request that arrives now.
      if (this.joinable.get(key) === answer) this.joinable.delete(key);
      return this.read(id, since);
    });
    this.joinable.set(key, answer);
    return answer;
  }

  /** What is new since `since` right now, or `undefined` when nothing is. */
  private async read(id: string, since: number): Promise<ChangeFeedView | undefined> {
    const { store, texts } = this.options;
    const head = await store.reads(id).document();
    if (!head) throw documentNotFound(id);
    if (since === head.version) return undefined;
    const fullText = async (events: ChangeEventView[]): Promise<ChangeFeedView> => ({
      currentVersion: head.version,
      content: await texts.headText(head),
      events,
    });
    if (since > head.version) return fullText([]);

    const reused = this.reads.reused(id, head.version, since);
    if (reused) return reused;
    // The versions since `since` (and `since` itself, for its compaction) from memory when the
    // writer's cache holds this head; from the store otherwise.
    const inMemory = texts.recentVersions(head, Math.max(0, since - 1));
    const records = inMemory ? inMemory.filter((record) => record.version > since) : await store.reads(id).versions(since, head.version);
    const events = records.map(eventOf);
    if (since === 0) return fullText(events);
    const sinceRecord = inMemory ? inMemory[0] : await store.reads(id).version(since);
    if (!sinceRecord || sinceRecord.ops === null || records.some((record) => record.ops === null)) return fullText(events);
    const ops = composeChain(records.map((record) => record.ops ?? []));
    const answer: ChangeFeedView = { fromVersion: since, currentVersion: head.version, ops, events };
    this.reads.remember(id, head.version, since, sinceRecord.createdAt, answer);
    return answer;
  }
}

function eventOf(record: VersionSummary): ChangeEventView {
  const event: ChangeEventView = { version: record.version, changeType: record.changeType };
  if (record.clientId !== undefined) event.clientId = record.clientId;
  if (record.displayName !== undefined) event.displayName = record.displayName;
  if (record.changeType === "RENAMED") event.title = record.title;
  return event;
}
