/** The bounds of {@link waitUntil}: it gives up after whichever comes first. */
export interface WaitBounds {
  maxIterations?: number;
  maxMs?: number;
  /** Pause between checks: 0 (the default) yields one `setImmediate` turn; more lets other processes (a database, a server) move. */
  pauseMs?: number;
}

/**
 * Yields to the event loop (one `setImmediate` turn, so I/O callbacks run in between) until
 * `condition` holds, at most `maxIterations` turns and `maxMs` milliseconds. Returns whether it held;
 * never sleeps a fixed time.
 */
export async function waitUntil(condition: () => boolean, { maxIterations = 100_000, maxMs = 2_000, pauseMs = 0 }: WaitBounds = {}): Promise<boolean> {
  const started = performance.now();
  for (let turn = 0; turn < maxIterations; turn++) {
    if (condition()) return true;
    if (performance.now() - started > maxMs) break;
    await new Promise<void>((resolve) => (pauseMs > 0 ? setTimeout(resolve, pauseMs) : setImmediate(resolve)));
  }
  return condition();
}

/**
 * Polls `condition` every few milliseconds until it holds, for what another process or the
 * database does; fails naming `what` after `maxMs` (or 100,000 checks).
 */
export async function until(what: string, condition: () => boolean, maxMs = 5_000): Promise<void> {
  if (!(await waitUntil(condition, { maxMs, pauseMs: 2 }))) throw new Error(`gave up after ${maxMs} ms waiting for ${what}`);
}
