import type { Config } from "../config/config.js";
import type { Clock } from "./clock.js";

/**
 * The time rules of a document's history, stated once and shared by everything that needs them
 * (the writer, the text reads, the feed, the compactor), so that they cannot disagree: the head
 * cache answers for exactly the versions compaction cannot have touched.
 * See docs/interface.md#compaction-and-retention and docs/interface.md#history-and-milestones.
 */
export interface HistoryPolicy {
  /** Epoch milliseconds now. */
  now(): number;
  /** A write pause at least this long promotes the version before it to a milestone. */
  readonly pauseMs: number;
  /** Versions created before this moment may be compacted (their ops and texts cleared) at any time now. */
  cutoff(): number;
}

export function historyPolicy(history: Pick<Config["history"], "pauseSeconds" | "retentionSeconds">, clock: Clock): HistoryPolicy {
  const retentionMs = history.retentionSeconds * 1000;
  return {
    now: () => clock.now(),
    pauseMs: history.pauseSeconds * 1000,
    cutoff: () => clock.now() - retentionMs,
  };
}
