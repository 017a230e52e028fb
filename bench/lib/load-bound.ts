/**
 * When a load generator, not the server, bounds a measurement: its process used at least
 * {@link LOAD_BOUND_CORES} of its core in the window, or its event loop lagged more than
 * {@link LOAD_BOUND_DELAY_MS} (p99). Then its requests and its readings of the answers were late by
 * its own doing, and a figure taken from it is not the server's.
 */
export const LOAD_BOUND_CORES = 0.9;
export const LOAD_BOUND_DELAY_MS = 50;

export function isLoadBound(cores: number, eventLoopP99Ms: number): boolean {
  return cores >= LOAD_BOUND_CORES || eventLoopP99Ms > LOAD_BOUND_DELAY_MS;
}

export const LOAD_BOUND_RULE = `a run counts as load-bound when its load generator used ≥ ${LOAD_BOUND_CORES} cores or its event-loop delay p99 exceeded ${LOAD_BOUND_DELAY_MS} ms in the measurement window`;
