/** Why a wait ended. */
export type WakeReason = { kind: "changed"; version: number; generation: number } | { kind: "timeout" } | { kind: "closed" } | { kind: "aborted" };

interface Waiter {
  settle: (reason: WakeReason) => void;
}

/** One registered wait: its outcome, and a way to end it early. */
export interface Wait {
  readonly reason: Promise<WakeReason>;
  cancel(): void;
}

/**
 * Wakes the waiters of one document when it changes. A wake is only a hint that the store has
 * something new; every waiter then reads the store. Each wait holds one timer and one set entry,
 * both gone when it ends (answer, timeout, abort or shutdown); nothing polls the database.
 */
export class ChangeHub {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private timers = 0;
  private closed = false;
  /** Grows on every wake-all (a lost notification source), so shared answers are never stale. */
  private generation = 0;

  /**
   * Registers a wait, at once, until `documentId` changes, `timeoutMs` passes, `signal` aborts or
   * the hub closes. Register before reading the store, so that no commit falls between the two.
   */
  wait(documentId: string, timeoutMs: number, signal?: AbortSignal): Wait {
    if (this.closed) return { reason: Promise.resolve({ kind: "closed" }), cancel: () => undefined };
    if (signal?.aborted) return { reason: Promise.resolve({ kind: "aborted" }), cancel: () => undefined };
    let cancel: () => void = () => undefined;
    const reason = new Promise<WakeReason>((resolve) => {
      let set = this.waiters.get(documentId);
      if (!set) {
        set = new Set();
        this.waiters.set(documentId, set);
      }
      const waiters = set;
      const onAbort = () => waiter.settle({ kind: "aborted" });
      const timer = setTimeout(() => waiter.settle({ kind: "timeout" }), timeoutMs);
      this.timers++;
      const waiter: Waiter = {
        settle: (reason) => {
          if (!waiters.delete(waiter)) return;
          if (waiters.size === 0 && this.waiters.get(documentId) === waiters) this.waiters.delete(documentId);
          clearTimeout(timer);
          this.timers--;
          signal?.removeEventListener("abort", onAbort);
          resolve(reason);
        },
      };
      waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
      cancel = () => waiter.settle({ kind: "aborted" });
    });
    return { reason, cancel };
  }

  /** A commit of `documentId` at `version` happened: wake that document's waiters only. */
  notify(documentId: string, version: number): void {
    const set = this.waiters.get(documentId);
    if (!set) return;
    const reason: WakeReason = { kind: "changed", version, generation: this.generation };
    for (const waiter of [...set]) waiter.settle(reason);
  }

  /** Notifications may have been lost: wake every waiter to re-read the store. */
  wakeAll(): void {
    this.generation++;
    for (const [documentId, set] of [...this.waiters]) {
      const reason: WakeReason = { kind: "changed", version: 0, generation: this.generation };
      for (const waiter of [...set]) waiter.settle(reason);
      this.waiters.delete(documentId);
    }
  }

  /** Ends every wait at once and refuses new ones (shutdown). */
  close(): void {
    this.closed = true;
    for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.settle({ kind: "closed" });
  }

  /** For tests and metrics: waits under way and timers they hold. */
  stats(): { documents: number; waiters: number; timers: number } {
    let waiters = 0;
    for (const set of this.waiters.values()) waiters += set.size;
    return { documents: this.waiters.size, waiters, timers: this.timers };
  }
}
