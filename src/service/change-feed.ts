import { composeChain } from "../core/compose-ops.js";
import type { NormalizedOp } from "../core/normalized-op.js";
import type { ChangeType, Store, VersionSummary } from "../storage/store.js";
import type { ChangeHub, WakeReason } from "./change-hub.js";
import type { Clock } from "./clock.js";
import { documentNotFound, type DocumentService } from "./documents.js";
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
  documents: DocumentService;
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
  /** Diff answers computed for a document's current head, by `since` (see {@link reuse}). */
  private readonly recent = new Map<string, RecentAnswers>();

  constructor(private readonly options: ChangeFeedOptions) {}

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
    const reused = known !== undefined && since < known && !this.quiet(id, since) ? this.reuse(id, known, since) : undefined;
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
        else if (wait && this.quiet(id, since)) answer = undefined;
        else answer = await this.read(id, since);
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

  // Whether a request that may wait need not read the store now, by what the hub was told: either
  // nothing is new (a commit past `since` is still to be noticed, and its notice, or the reset
  // after lost ones, wakes the wait), or what is new was gathered by the document's open window,
  // which wakes the wait at its end (so an author gets one answer per window, not one per poll).
  private quiet(id: string, since: number): boolean {
    const known = this.options.hub.knownVersion(id);
    return known !== undefined && (since === known || (since < known && this.options.hub.gathers(id, since)));
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

  /** What is new since `since` right now, or `undefined` when nothing is. */
  private async read(id: string, since: number): Promise<ChangeFeedView | undefined> {
    const { store, documents } = this.options;
    const head = await store.getDocument(id);
    if (!head) throw documentNotFound(id);
    if (since === head.version) return undefined;
    const fullText = async (events: ChangeEventView[]): Promise<ChangeFeedView> => ({
      currentVersion: head.version,
      content: await documents.headText(head),
      events,
    });
    if (since > head.version) return fullText([]);

    const reused = this.reuse(id, head.version, since);
    if (reused) return reused;
    // The versions since `since` (and `since` itself, for its compaction) from memory when the
    // writer's cache holds this head; from the store otherwise.
    const inMemory = documents.recentVersions(head, Math.max(0, since - 1));
    const records = inMemory ? inMemory.filter((record) => record.version > since) : await store.getVersions(id, since, head.version);
    const events = records.map(eventOf);
    if (since === 0) return fullText(events);
    const sinceRecord = inMemory ? inMemory[0] : await store.getVersion(id, since);
    if (!sinceRecord || sinceRecord.ops === null || records.some((record) => record.ops === null)) return fullText(events);
    const ops = composeChain(records.map((record) => record.ops ?? []));
    const answer: ChangeFeedView = { fromVersion: since, currentVersion: head.version, ops, events };
    if (ops.reduce((sum, op) => sum + opCharacters(op), events.length * EVENT_CHARACTERS) <= REUSE_MAX_CHARACTERS) {
      this.remember(id, head.version, since, sinceRecord.createdAt, answer);
    }
    return answer;
  }

  // Requests that arrive with the same `since` while the head stays the same get the same diff:
  // under a stream of commits, the clients answered by one wake-up poll again with one `since`
  // and find the head moved on, so most of them would compute (and the transport serialize) the
  // same answer. Only diffs up to a size are kept (a full text may be large), keyed by the head the store
  // reported (found again by a read's head or by the newest version noticed, never newer than the
  // store's), only briefly, and only while the oldest version they rest on is younger than the
  // retention cutoff (compaction may drop older ops, which turns `since` into a full-text answer).
  private reuse(id: string, version: number, since: number): ChangeFeedView | undefined {
    const entry = this.recent.get(id);
    if (!entry || entry.version !== version || this.options.clock.now() - entry.at > REUSE_MS) return undefined;
    const kept = entry.answers.get(since);
    return kept && kept.oldest >= this.options.documents.retentionCutoff() ? kept.answer : undefined;
  }

  private remember(id: string, version: number, since: number, oldest: number, answer: ChangeFeedView): void {
    const now = this.options.clock.now();
    let entry = this.recent.get(id);
    if (!entry || entry.version < version || now - entry.at > REUSE_MS) {
      this.recent.delete(id);
      entry = { version, at: now, answers: new Map() };
      this.recent.set(id, entry);
      if (this.recent.size > REUSE_DOCUMENTS) this.recent.delete(this.recent.keys().next().value!);
    }
    if (entry.version === version && entry.answers.size < REUSE_PER_DOCUMENT) entry.answers.set(since, { oldest, answer });
  }
}

/** How long a computed diff answers other requests for the same head and `since`. */
const REUSE_MS = 1000;
/** Documents, and `since` values per document, whose diffs are kept for reuse. */
const REUSE_DOCUMENTS = 64;
const REUSE_PER_DOCUMENT = 64;
/** The largest diff kept for reuse, in characters of its lines (an event counted as {@link EVENT_CHARACTERS}). */
const REUSE_MAX_CHARACTERS = 65_536;
const EVENT_CHARACTERS = 100;

function opCharacters(op: NormalizedOp): number {
  let characters = 0;
  for (const line of op.lines) characters += line.length + 1;
  return characters;
}

interface RecentAnswers {
  version: number;
  /** When the entry was started (its answers are reused until {@link REUSE_MS} after). */
  at: number;
  /** By `since`: the answer and the creation time of version `since`, the oldest it rests on. */
  answers: Map<number, { oldest: number; answer: ChangeFeedView }>;
}

function eventOf(record: VersionSummary): ChangeEventView {
  const event: ChangeEventView = { version: record.version, changeType: record.changeType };
  if (record.clientId !== undefined) event.clientId = record.clientId;
  if (record.displayName !== undefined) event.displayName = record.displayName;
  if (record.changeType === "RENAMED") event.title = record.title;
  return event;
}
