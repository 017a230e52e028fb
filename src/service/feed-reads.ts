import type { ChangeHub } from "./change-hub.js";

/** What a poll does next: the three outcomes of {@link FeedReads.next}. */
export type FeedStep =
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
export class FeedReads {
  constructor(private readonly hub: ChangeHub) {}

  /**
   * When does a poll read the store? Asked when a poll arrives (`wokenFor` undefined) and each time
   * its wait is woken by a change (`wokenFor` the version woken for, 0 after lost notices); the
   * feed's loop (change-feed.ts) acts on the answer, in this order of rules:
   *
   * 1. Woken by a commit past `since`: read once for this wake-up. The waiters that commit woke with
   *    the same `since` share one read (caches/shared-reads.ts, `shared`).
   * 2. When it may wait, and the hub says nothing can be new (`since` is the newest version noticed:
   *    every commit is noticed once durable, so a later commit's notice is still to come and wakes
   *    the wait, or the reset after lost ones does), or what is new is being gathered by the
   *    document's open window (its end wakes the wait, so an author gets one answer per window, not
   *    one per poll): wait without reading.
   * 3. Otherwise read at once, joined with the requests of this `since` whose read has not yet read
   *    the head (caches/shared-reads.ts, `joined`; the read itself: changes-since.ts).
   *
   * (A fourth rule, answering on arrival from a diff kept for a moment by `since`, was measured in
   * paired runs on the authors, open editors and feed fan-out scenarios, found flat in each, and
   * removed: docs/benchmarks-history.md, the sixth session of 2026-11-26.)
   */
  next(id: string, since: number, mayWait: boolean, wokenFor?: number): FeedStep {
    if (wokenFor !== undefined && wokenFor > since) return { kind: "shared", version: wokenFor };
    const known = this.hub.knownVersion(id);
    const gathered = known !== undefined && since < known && this.hub.gathers(id, since);
    if (mayWait && (since === known || gathered)) return WAIT;
    return JOINED;
  }
}
