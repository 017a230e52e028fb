/** A timer set through a {@link Clock}. */
export interface Timer {
  /** Stops the timer; harmless once it fired or was cancelled. */
  cancel(): void;
}

/** The source of time of the service, for reading it and for timers; tests pass a clock they move by hand. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /**
   * Calls `callback` once, `ms` from now. With `unref`, a pending timer does not keep the process
   * alive (a background schedule rather than an answer someone waits for).
   */
  timer(ms: number, callback: () => void, options?: { unref?: boolean }): Timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  timer: (ms, callback, options) => {
    const handle = setTimeout(callback, ms);
    if (options?.unref) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};
