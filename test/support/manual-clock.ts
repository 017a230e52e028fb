import { systemClock, type Clock, type Timer } from "../../src/service/clock.js";

interface PendingTimer {
  at: number;
  order: number;
  callback: () => void;
}

/**
 * A clock that moves only when a test moves it; its timers fire as it passes their time, in order.
 * With `realTimers` its timers run on the wall clock instead (the time read still moves by hand):
 * for suites whose clients run on real time over real sockets (retries, polls that must run out),
 * where no test could move the clock at the right moment.
 */
export class ManualClock implements Clock {
  private readonly timers = new Set<PendingTimer>();
  private order = 0;

  constructor(
    private current = Date.parse("2026-01-05T10:00:00.000Z"),
    private readonly options: { realTimers?: boolean } = {},
  ) {}

  now(): number {
    return this.current;
  }

  timer(ms: number, callback: () => void): Timer {
    if (this.options.realTimers) return systemClock.timer(ms, callback);
    const timer = { at: this.current + Math.max(0, ms), order: this.order++, callback };
    this.timers.add(timer);
    return { cancel: () => this.timers.delete(timer) };
  }

  /** Timers set and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves on by `ms`, firing every timer due on the way at its own time (a timer set by one that fires is due too). */
  advance(ms: number): void {
    this.set(this.current + ms);
  }

  set(ms: number): void {
    for (;;) {
      let next: PendingTimer | undefined;
      for (const timer of this.timers) if (timer.at <= ms && (!next || timer.at < next.at || (timer.at === next.at && timer.order < next.order))) next = timer;
      if (!next) break;
      this.timers.delete(next);
      this.current = Math.max(this.current, next.at);
      next.callback();
    }
    this.current = ms;
  }
}
