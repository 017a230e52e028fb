import { runFeed, type FeedLoopOptions } from "./feed-loop.js";
import type { ChangeFeed } from "./types.js";

/**
 * The feed's answers waiting for a live document's worker, in order. The feed loop asks again only
 * once its answer was taken and applied (or dropped at the close), so answers never pile up.
 */
export class FeedInbox {
  private readonly queue: Array<{ answer: ChangeFeed; done: () => void }> = [];

  /** `arrived` is told of each answer as it is queued; false when the document is closed (it is dropped). */
  constructor(private readonly arrived: (answer: ChangeFeed) => boolean) {}

  get waiting(): boolean {
    return this.queue.length > 0;
  }

  /** Starts the feed loop (feed-loop.ts) into this inbox. */
  follow(options: Omit<FeedLoopOptions, "deliver">): void {
    void runFeed({ ...options, deliver: (answer) => this.put(answer) });
  }

  /** Applies the oldest answer with `apply`, then lets the feed loop ask again. */
  async take(apply: (answer: ChangeFeed) => Promise<void>): Promise<void> {
    const item = this.queue.shift();
    if (item) await apply(item.answer).finally(item.done);
  }

  /** Drops every waiting answer. */
  clear(): void {
    for (const item of this.queue.splice(0)) item.done();
  }

  private put(answer: ChangeFeed): Promise<void> {
    return new Promise((done) => {
      this.queue.push({ answer, done });
      if (!this.arrived(answer)) this.clear();
    });
  }
}
