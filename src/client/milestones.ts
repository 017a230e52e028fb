import { abortError } from "./backoff.js";

type Waiter = { resolve: () => void; reject: (error: Error) => void };

/**
 * The milestones asked for (saveMilestone, the "save version" button): they wait for the next patch,
 * ride on it while it is in flight, and are resolved by its 200. A refused patch puts them back in
 * front of the waiting ones (409) or rejects them (any other refusal).
 */
export class Milestones {
  private waiting: Waiter[] = [];
  private riding: Waiter[] = [];

  /** Some milestone waits for the next patch. */
  get wanted(): boolean {
    return this.waiting.length > 0;
  }

  add(): Promise<void> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** The next patch goes out: the waiting milestones ride on it. True when it is a milestone patch. */
  board(): boolean {
    this.riding = this.waiting.splice(0);
    return this.riding.length > 0;
  }

  /** The patch was recorded. */
  landed(): void {
    for (const waiter of this.riding.splice(0)) waiter.resolve();
  }

  /** The patch was not applied: its milestones wait for the next one again. */
  back(): void {
    this.waiting.unshift(...this.riding.splice(0));
  }

  /** Every waiting milestone fails with `error`. */
  fail(error: Error): void {
    for (const waiter of this.waiting.splice(0)) waiter.reject(error);
  }

  /** The document closed. */
  abort(): void {
    this.back();
    this.fail(abortError());
  }
}
