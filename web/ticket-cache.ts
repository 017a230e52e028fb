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
   * Fetches the stale ones of `keys` (duplicates once), `concurrency` at a time, and calls `onAnswer`
   * for each answer as it comes. Resolves "rejected" as soon as the tracker refuses the token (no
   * further fetch starts), else "done".
   */
  async fetchMissing(keys: readonly TicketKey[], onAnswer: (key: TicketKey, value: CachedTicket) => void): Promise<"done" | "rejected"> {
    const generation = this.#generation;
    const queue: TicketKey[] = [];
    const seen = new Set<string>();
    for (const key of keys) {
      const id = keyOf(key);
      if (seen.has(id) || !this.stale(key)) continue;
      seen.add(id);
      queue.push(key);
      if (queue.length >= this.#options.maxPerRound) break;
    }
    let rejected = false;
    const worker = async () => {
      for (let key = queue.shift(); key && !rejected; key = queue.shift()) {
        const id = keyOf(key);
        this.#pending.add(id);
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
        if (generation !== this.#generation) return;
        this.#pending.delete(id);
        if (rejected) return;
        const previous = this.#entries.get(id)?.value;
        this.#entries.set(id, { value: value ?? previous, expires: this.#options.now() + ttl });
        if (value) onAnswer(key, value);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#options.concurrency, queue.length) }, worker));
    return rejected ? "rejected" : "done";
  }
}
