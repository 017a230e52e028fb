import { abortError } from "./backoff.js";

/** The callers of whenSynced(): released together when the document is synced, rejected on close or timeout. */
export class SyncWaiters {
  private waiters: Array<() => void> = [];

  constructor(private readonly signal: AbortSignal) {}

  wait(timeoutMs: number | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) return reject(abortError());
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onClose = () => {
        clearTimeout(timer);
        reject(abortError());
      };
      const done = () => {
        clearTimeout(timer);
        this.signal.removeEventListener("abort", onClose);
        resolve();
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.waiters = this.waiters.filter((waiter) => waiter !== done);
          this.signal.removeEventListener("abort", onClose);
          reject(new Error(`not synced within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.signal.addEventListener("abort", onClose, { once: true });
      this.waiters.push(done);
    });
  }

  release(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}
