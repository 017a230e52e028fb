/**
 * The keys (client addresses, tracker user names) each limit remembers. Past this, the key seen
 * least recently is forgotten (its count starts again), so memory stays bounded however many
 * addresses call; an address that keeps sending is always recent and never forgotten. About 150
 * bytes a key, so at most about 1.5 MB a limit (docs/operations.md, "Rate limits").
 */
export const REMEMBERED_ADDRESSES = 10_000;

interface Window {
  used: number;
  endsAt: number;
}

/**
 * A fixed-window limit of cost per key: a window starts with a key's first request and holds `max`
 * units of cost. A request is let in while its key's window has any unit left, and takes its cost
 * (one unit for an ordinary request, more for a costly one, which may take the window past `max`).
 * What a window took past `max` is carried into the next one, so a request that cost ten windows
 * keeps its key waiting for ten. Memory is bounded by `remembered` keys.
 */
export class WindowLimit {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
    private readonly remembered = REMEMBERED_ADDRESSES,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `cost` from the window of `key`; the whole seconds until the window ends when it has nothing left (and nothing is taken). */
  take(key: string, cost = 1): number | undefined {
    const window = this.windowOf(key);
    const now = this.now();
    if (window.used >= this.max) return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
    window.used += cost;
    return undefined;
  }

  /** Adds cost found only after the answer (its size) to the current window of `key`; a negative cost gives back. */
  charge(key: string, cost: number): void {
    if (cost === 0) return;
    const window = this.windowOf(key);
    window.used = Math.max(0, window.used + cost);
  }

  /** The key's current window, made the most recently seen; a new one when it has none or its window ended. */
  private windowOf(key: string): Window {
    const now = this.now();
    let window = this.windows.get(key);
    if (window !== undefined) this.windows.delete(key);
    if (window === undefined || window.endsAt <= now) {
      // The windows that passed since pay off the debt of the last one; a key seen again after a
      // long quiet starts afresh.
      const passed = window === undefined ? Infinity : Math.floor((now - window.endsAt) / this.windowMs) + 1;
      const debt = window === undefined ? 0 : Math.max(0, window.used - this.max * passed);
      window = { used: debt, endsAt: now + this.windowMs };
    }
    this.windows.set(key, window);
    if (this.windows.size > this.remembered) this.windows.delete(this.windows.keys().next().value ?? key);
    return window;
  }
}
