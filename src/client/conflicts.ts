import { abortError } from "./backoff.js";
import type { Emitter } from "./events.js";
import type { Conflict } from "./live-types.js";

type ConflictEvents = { conflict: [Conflict] };

/**
 * Asks the conflict listeners to choose, one conflict at a time (only with `conflicts: "ask"`).
 * With no listener there is nobody to ask: `undefined` at once, and the live document merges as by
 * default, so that it never stays stuck and never drops what was typed (README, "Two people in one line").
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

  /** Someone listens for conflicts: a choice can be asked for. */
  get listened(): boolean {
    return this.emitter.count("conflict") > 0;
  }

  async ask(theirs: string, mine: () => string, version: number): Promise<"theirs" | "mine" | undefined> {
    if (this.emitter.count("conflict") === 0) return undefined;
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
            resolve(choice);
          },
        });
      });
    } finally {
      this.waiting = false;
    }
  }
}
