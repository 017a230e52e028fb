import { abortError } from "./backoff.js";
import type { Emitter } from "./events.js";
import type { Conflict } from "./live-types.js";

/** A text at a version of the service. */
export interface Snapshot {
  version: number;
  lines: string[];
  /** The checksum of the text, once known (from the service's answer, or computed for a patch): hashed at most once. */
  checksum?: string;
}

type ConflictEvents = { conflict: [Conflict] };

/**
 * Asks the conflict listeners to choose, one conflict at a time. With no listener the choice is
 * "theirs" at once (`answered: false`): a live document never stays stuck, and the caller reports
 * the discarded local text in an `error` event (README, "Conflicts").
 */
export class ConflictDeck {
  private waiting = false;

  constructor(
    private readonly emitter: Emitter<ConflictEvents & Record<string, unknown[]>>,
    private readonly signal: AbortSignal,
  ) {}

  get open(): boolean {
    return this.waiting;
  }

  async ask(theirs: string, mine: () => string, version: number): Promise<{ choice: "theirs" | "mine"; answered: boolean }> {
    if (this.emitter.count("conflict") === 0) return { choice: "theirs", answered: false };
    this.waiting = true;
    try {
      return await new Promise((resolve, reject) => {
        if (this.signal.aborted) return reject(abortError());
        const onAbort = () => reject(abortError());
        this.signal.addEventListener("abort", onAbort, { once: true });
        let decided = false;
        this.emitter.emit("conflict", {
          theirs,
          mine: mine(),
          version,
          resolve: (choice) => {
            if (decided || (choice !== "theirs" && choice !== "mine")) return;
            decided = true;
            this.signal.removeEventListener("abort", onAbort);
            resolve({ choice, answered: true });
          },
        });
      });
    } finally {
      this.waiting = false;
    }
  }
}
