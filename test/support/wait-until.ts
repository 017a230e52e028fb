/** The bounds of {@link waitUntil}: it gives up after whichever comes first. */
export interface WaitBounds {
  maxIterations?: number;
  maxMs?: number;
}

/**
 * Yields to the event loop (one `setImmediate` turn, so I/O callbacks run in between) until
 * `condition` holds, at most `maxIterations` turns and `maxMs` milliseconds. Returns whether it held;
 * never sleeps a fixed time.
 */
export async function waitUntil(condition: () => boolean, { maxIterations = 100_000, maxMs = 2_000 }: WaitBounds = {}): Promise<boolean> {
  const started = performance.now();
  for (let turn = 0; turn < maxIterations; turn++) {
    if (condition()) return true;
    if (performance.now() - started > maxMs) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return condition();
}
