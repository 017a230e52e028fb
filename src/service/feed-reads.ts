import type { ChangeHub } from "./change-hub.js";
import type { KeptAnswer, KeptDiffs } from "./caches/kept-diffs.js";

/** What a poll does next: the four outcomes of {@link FeedReads.next}. */
export type FeedStep<A> =
  /** Answer now with a diff kept for the newest version noticed: no wait, no read. */
  | { kind: "kept"; answer: A }
  /** Wait without reading the store. */
  | { kind: "wait" }
  /** Read now, joining the requests with this `since` whose read has not yet read the head. */
  | { kind: "joined" }
  /** Read once for the wake-up by the commit at `version`, shared with the waiters it woke. */
  | { kind: "shared"; version: number };

/** The steps without data, made once (a poll asks for a step on arrival and at each wake-up). */
const WAIT = { kind: "wait" } as const;
const JOINED = { kind: "joined" } as const;

/** When a poll reads the store: the one place that decides it (see {@link next}). */
export class FeedReads<A extends KeptAnswer> {
  constructor(
    private readonly hub: ChangeHub,
    private readonly kept: KeptDiffs<A>,
  ) {}

  /**
   * When does a poll read the store? Asked when a poll arrives (`wokenFor` undefined) and each time
   * its wait is woken by a change (`wokenFor` the version woken for, 0 after lost notices); the
   * feed's loop (change-feed.ts) acts on the answer, in this order of rules:
   *
   * 1. Woken by a commit past `since`: read once for this wake-up. The waiters that commit woke with
   *    the same `since` share one read (caches/shared-reads.ts, `shared`).
   * 2. On arrival, when the hub noticed a version past `since` that the open window is not gathering
   *    and a diff from `since` to that version is kept: answer with it, without waiting or reading
   *    (caches/kept-diffs.ts).
   * 3. When it may wait, and the hub says nothing can be new (`since` is the newest version noticed:
   *    every commit is noticed once durable, so a later commit's notice is still to come and wakes
   *    the wait, or the reset after lost ones does), or what is new is being gathered by the
   *    document's open window (its end wakes the wait, so an author gets one answer per window, not
   *    one per poll): wait without reading.
   * 4. Otherwise read at once, joined with the requests of this `since` whose read has not yet read
   *    the head (caches/shared-reads.ts, `joined`). The read itself answers with a diff kept for the head
   *    it finds, or reads the versions since (changes-since.ts).
   */
  next(id: string, since: number, mayWait: boolean, wokenFor?: number): FeedStep<A> {
    if (wokenFor !== undefined && wokenFor > since) return { kind: "shared", version: wokenFor };
    const known = this.hub.knownVersion(id);
    const gathered = known !== undefined && since < known && this.hub.gathers(id, since);
    if (wokenFor === undefined && known !== undefined && since < known && !gathered) {
      const answer = this.kept.find(id, known, since);
      if (answer) return { kind: "kept", answer };
    }
    if (mayWait && (since === known || gathered)) return WAIT;
    return JOINED;
  }
}
