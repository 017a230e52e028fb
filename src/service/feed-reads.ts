import type { NormalizedOp } from "../core/normalized-op.js";
import type { ChangeHub } from "./change-hub.js";
import type { Clock } from "./clock.js";
import type { HistoryPolicy } from "./history-policy.js";

/*
 * When does a poll read the store? Answered here, for the whole feed:
 *
 * - Never, when a diff computed for the newest version noticed (or the head just read) and the same
 *   `since` is younger than a second and rests on no version past the retention cutoff ({@link reused}).
 * - Not before waiting, when the hub says nothing can be new (`since` is the newest version noticed:
 *   a later commit's notice is still to come) or what is new is being gathered by the document's open
 *   window, which wakes the wait at its end ({@link quiet}).
 * - Once per wake-up and `since`: waiters woken by one commit with one `since` share one read
 *   (change-feed.ts, `sharedRead`).
 * - Otherwise, at once: the head row, then the versions after `since` from the writer's head cache
 *   while it holds the head and reaches back that far (HeadTexts.recentVersions), else from the store.
 */
/** What the feed answers, as far as keeping it goes: its ops and events weigh it. */
interface Answer {
  ops?: NormalizedOp[];
  events: readonly unknown[];
}

export class FeedReads<A extends Answer> {
  /** Diff answers computed for a document's current head, by `since` (see {@link reused}). */
  private readonly recent = new Map<string, RecentAnswers<A>>();

  constructor(
    private readonly hub: ChangeHub,
    private readonly clock: Clock,
    private readonly policy: HistoryPolicy,
  ) {}

  // Whether a request that may wait need not read the store now, by what the hub was told: either
  // nothing is new (a commit past `since` is still to be noticed, and its notice, or the reset
  // after lost ones, wakes the wait), or what is new was gathered by the document's open window,
  // which wakes the wait at its end (so an author gets one answer per window, not one per poll).
  quiet(id: string, since: number): boolean {
    const known = this.hub.knownVersion(id);
    return known !== undefined && (since === known || (since < known && this.hub.gathers(id, since)));
  }

  // Requests that arrive with the same `since` while the head stays the same get the same diff:
  // under a stream of commits, the clients answered by one wake-up poll again with one `since`
  // and find the head moved on, so most of them would compute (and the transport serialize) the
  // same answer. Only diffs up to a size are kept (a full text may be large), keyed by the head the store
  // reported (found again by a read's head or by the newest version noticed, never newer than the
  // store's), only briefly, and only while the oldest version they rest on is younger than the
  // retention cutoff (compaction may drop older ops, which turns `since` into a full-text answer).
  reused(id: string, version: number, since: number): A | undefined {
    const entry = this.recent.get(id);
    if (!entry || entry.version !== version || this.clock.now() - entry.at > REUSE_MS) return undefined;
    const kept = entry.answers.get(since);
    return kept && kept.oldest >= this.policy.cutoff() ? kept.answer : undefined;
  }

  /** Keeps a diff just computed for `version` (the head) and `since`, when it is small enough to keep. */
  remember(id: string, version: number, since: number, oldest: number, answer: A): void {
    const size = (answer.ops ?? []).reduce((sum, op) => sum + opCharacters(op), answer.events.length * EVENT_CHARACTERS);
    if (size > REUSE_MAX_CHARACTERS) return;
    const now = this.clock.now();
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

interface RecentAnswers<A> {
  version: number;
  /** When the entry was started (its answers are reused until {@link REUSE_MS} after). */
  at: number;
  /** By `since`: the answer and the creation time of version `since`, the oldest it rests on. */
  answers: Map<number, { oldest: number; answer: A }>;
}
