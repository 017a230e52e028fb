/**
 * The page's cache of linked tickets, for the inline badges (web/ticket-badges.ts): one entry per
 * (slug, kind, ref), fresh for a short time, fetched at most `concurrency` at a time and never twice at
 * once. Expired entries stay readable (a badge keeps showing the last known state) until the next
 * answer replaces them. Pure: no DOM, no editor; the fetch and the clock are handed in.
 */
import type { TrackerTicketDetail } from "../src/client/index.js";
import type { TicketKind } from "./outline.js";

export interface TicketKey {
  slug: string;
  kind: TicketKind;
  ref: number;
}

export type CachedTicket = { state: "found"; detail: TrackerTicketDetail } | { state: "missing" };

/** What a failed fetch means: the ticket does not exist, a passing failure, or the token was refused (stop). */
export type FetchFailure = "missing" | "failed" | "rejected";

export interface TicketCacheOptions {
  fetch: (key: TicketKey) => Promise<TrackerTicketDetail>;
  classify: (error: unknown) => FetchFailure;
  now?: () => number;
  /** How long an answer counts as fresh. */
  ttlMs?: number;
  /** How long a passing failure keeps the key from being asked again. */
  retryMs?: number;
  concurrency?: number;
  /** At most this many keys per call to fetchMissing (a huge document does not flood the tracker). */
  maxPerRound?: number;
}

interface Entry {
  value?: CachedTicket;
  expires: number;
}

export const keyOf = (key: TicketKey): string => `${key.slug}\u0000${key.kind}\u0000${key.ref}`;

export class TicketCache {
  readonly #entries = new Map<string, Entry>();
  readonly #pending = new Set<string>();
  readonly #options: Required<TicketCacheOptions>;
  #generation = 0;

  constructor(options: TicketCacheOptions) {
    this.#options = { now: () => Date.now(), ttlMs: 60_000, retryMs: 15_000, concurrency: 4, maxPerRound: 100, ...options };
  }

  /** The last known state of the ticket, fresh or not; undefined when never fetched (or it failed). */
  get(key: TicketKey): CachedTicket | undefined {
    return this.#entries.get(keyOf(key))?.value;
  }

  /** Stores an answer fetched elsewhere (the tracker panel's, a move's). */
  put(key: TicketKey, detail: TrackerTicketDetail): void {
    this.#entries.set(keyOf(key), { value: { state: "found", detail }, expires: this.#options.now() + this.#options.ttlMs });
  }

  /** Forgets everything (log out); answers still under way are dropped when they come. */
  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#pending.clear();
  }

  /** True when the key needs a fetch: never fetched, or expired, and not under way. */
  stale(key: TicketKey): boolean {
    const id = keyOf(key);
    if (this.#pending.has(id)) return false;
    const entry = this.#entries.get(id);
    return entry === undefined || entry.expires <= this.#options.now();
  }

  /**
   * Fetches the stale ones of `keys` (duplicates once) and calls `onAnswer` for each answer as it
   * comes; at most `concurrency` fetches are under way at once over all rounds together (first
   * asked, first fetched). Resolves "rejected" once the tracker refuses the token (no further fetch
   * of the round starts), else "done".
   */
  async fetchMissing(keys: readonly TicketKey[], onAnswer: (key: TicketKey, value: CachedTicket) => void): Promise<"done" | "rejected"> {
    const generation = this.#generation;
    const round: TicketKey[] = [];
    for (const key of keys) {
      if (!this.stale(key)) continue;
      this.#pending.add(keyOf(key));
      round.push(key);
      if (round.length >= this.#options.maxPerRound) break;
    }
    let rejected = false;
    const one = async (key: TicketKey) => {
      const id = keyOf(key);
      await this.#slot();
      try {
        if (rejected || generation !== this.#generation) return;
        let value: CachedTicket | undefined;
        let ttl = this.#options.ttlMs;
        try {
          value = { state: "found", detail: await this.#options.fetch(key) };
        } catch (error) {
          const failure = this.#options.classify(error);
          if (failure === "rejected") rejected = true;
          if (failure === "missing") value = { state: "missing" };
          else ttl = this.#options.retryMs;
        }
        if (rejected || generation !== this.#generation) return;
        const previous = this.#entries.get(id)?.value;
        const kept = value ?? previous;
        this.#entries.set(id, kept ? { value: kept, expires: this.#options.now() + ttl } : { expires: this.#options.now() + ttl });
        if (value) onAnswer(key, value);
      } finally {
        if (generation === this.#generation) this.#pending.delete(id);
        this.#release();
      }
    };
    await Promise.all(round.map(one));
    return rejected ? "rejected" : "done";
  }

  #active = 0;
  readonly #waiting: (() => void)[] = [];

  /** Waits for one of the `concurrency` fetch slots. */
  async #slot(): Promise<void> {
    if (this.#active < this.#options.concurrency) {
      this.#active += 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the slot to the next in line, or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active -= 1;
  }
}
