import type { NormalizedOp } from "../../core/normalized-op.js";
import type { Clock } from "../clock.js";
import type { HistoryPolicy } from "../history-policy.js";

/** What the feed answers, as far as keeping it goes: its ops and events weigh it. */
export interface KeptAnswer {
  ops?: NormalizedOp[];
  events: readonly unknown[];
}

/**
 * Diffs computed for a document's current head, kept for a moment by `since`. Requests that arrive
 * with the same `since` while the head stays the same get the same diff: under a stream of commits,
 * the clients answered by one wake-up poll again with one `since` and find the head moved on, so most
 * of them would compute (and the transport serialize) the same answer. Only diffs up to a size are
 * kept (a full text may be large), keyed by the head the store reported (found again by a read's head
 * or by the newest version the hub noticed, never newer than the store's), only briefly, and only
 * while the oldest version they rest on is younger than the retention cutoff (compaction may drop
 * older ops, which turns `since` into a full-text answer).
 */
export class KeptDiffs<A extends KeptAnswer> {
  private readonly recent = new Map<string, RecentAnswers<A>>();

  constructor(
    private readonly clock: Clock,
    private readonly policy: HistoryPolicy,
  ) {}

  /** The diff kept for head `version` and `since`, if it may still answer. */
  find(id: string, version: number, since: number): A | undefined {
    const entry = this.recent.get(id);
    if (!entry || entry.version !== version || this.clock.now() - entry.at > KEEP_MS) return undefined;
    const kept = entry.answers.get(since);
    return kept && kept.oldest >= this.policy.cutoff() ? kept.answer : undefined;
  }

  /** Keeps a diff just computed for `version` (the head) and `since`, when it is small enough to keep. */
  keep(id: string, version: number, since: number, oldest: number, answer: A): void {
    const size = (answer.ops ?? []).reduce((sum, op) => sum + opCharacters(op), answer.events.length * EVENT_CHARACTERS);
    if (size > KEEP_MAX_CHARACTERS) return;
    const now = this.clock.now();
    let entry = this.recent.get(id);
    if (!entry || entry.version < version || now - entry.at > KEEP_MS) {
      this.recent.delete(id);
      entry = { version, at: now, answers: new Map() };
      this.recent.set(id, entry);
      if (this.recent.size > KEEP_DOCUMENTS) this.recent.delete(this.recent.keys().next().value!);
    }
    if (entry.version === version && entry.answers.size < KEEP_PER_DOCUMENT) entry.answers.set(since, { oldest, answer });
  }
}

/** How long a computed diff answers other requests for the same head and `since`. */
const KEEP_MS = 1000;
/** Documents, and `since` values per document, whose diffs are kept. */
const KEEP_DOCUMENTS = 64;
const KEEP_PER_DOCUMENT = 64;
/** The largest diff kept, in characters of its lines (an event counted as {@link EVENT_CHARACTERS}). */
const KEEP_MAX_CHARACTERS = 65_536;
const EVENT_CHARACTERS = 100;

function opCharacters(op: NormalizedOp): number {
  let characters = 0;
  for (const line of op.lines) characters += line.length + 1;
  return characters;
}

interface RecentAnswers<A> {
  version: number;
  /** When the entry was started (its answers are kept until {@link KEEP_MS} after). */
  at: number;
  /** By `since`: the answer and the creation time of version `since`, the oldest it rests on. */
  answers: Map<number, { oldest: number; answer: A }>;
}
