import type { Clock } from "../../src/service/clock.js";

/** A clock that moves only when a test moves it. */
export class ManualClock implements Clock {
  constructor(private current = Date.parse("2026-01-05T10:00:00.000Z")) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}
