/** The authors scenario's table rows, notes and target. */
import { LOAD_BOUND_RULE } from "../lib/load-bound.js";
import type { ScenarioResult, TargetResult } from "../lib/results.js";
import { figure, formatNumber, median } from "../lib/stats.js";
import { INTERVAL_MS, TARGET_N, type AuthorsRun } from "./authors-analysis.js";
const TARGET_P95_MS = 1000;
const MIN_ACKNOWLEDGED = 0.99;

/** " (load generator was the bound in k of R runs)", or nothing. */
function boundNote(runs: readonly AuthorsRun[]): string {
  const bound = runs.filter((r) => r.loadBound).length;
  return bound > 0 ? ` — load generator was the bound in ${bound} of ${runs.length} run(s)` : "";
}

/** Headline rows of every N first, then the secondary rows of each N. */
export function authorsRows(result: ScenarioResult, byLevel: ReadonlyMap<number, AuthorsRun[]>): void {
  const row = (label: string, runs: readonly AuthorsRun[], value: (r: AuthorsRun) => number, unit: string) =>
    result.rows.push({ label, figure: figure(runs.map(value), unit) });
  for (const [n, runs] of byLevel) {
    const bound = boundNote(runs);
    row(`N=${n}: end to end (send → every other author) p50${bound}`, runs, (r) => r.e2eP50, "ms");
    row(`N=${n}: end to end (send → every other author) p95${bound}`, runs, (r) => r.e2eP95, "ms");
    row(`N=${n}: send → pair p50${bound}`, runs, (r) => r.sendP50, "ms");
    row(`N=${n}: send → pair p95${bound}`, runs, (r) => r.sendP95, "ms");
    row(`N=${n}: ticks skipped (patch still in flight)${bound}`, runs, (r) => r.skippedTickShare * 100, "%");
    row(`N=${n}: patches never acknowledged${bound}`, runs, (r) => (1 - r.acknowledgedShare) * 100, "%");
  }
  for (const [n, runs] of byLevel) {
    row(`N=${n}: service CPU per accepted patch`, runs, (r) => r.cpuPerPatchUs, "µs");
    row(`N=${n}: service CPU per feed answer`, runs, (r) => r.cpuPerFeedAnswerUs, "µs");
    row(`N=${n}: service CPU`, runs, (r) => r.serverCores, "cores");
    row(`N=${n}: load generator CPU`, runs, (r) => r.loadCores, "cores");
    row(`N=${n}: load generator event-loop delay p99`, runs, (r) => r.loadEventLoopP99Ms, "ms");
    row(`N=${n}: service main thread waited for its CPU`, runs, (r) => r.serverWaitShare * 100, "%");
    row(`N=${n}: load generator main thread waited for its CPU`, runs, (r) => r.loadWaitShare * 100, "%");
    row(`N=${n}: accepted patches/s (offered ${(n * 1000) / INTERVAL_MS}/s)`, runs, (r) => r.acceptedPerSecond, "req/s");
    row(`N=${n}: feed answers/s`, runs, (r) => r.feedAnswersPerSecond, "req/s");
    row(`N=${n}: ack → pair p50`, runs, (r) => r.pairP50, "ms");
    row(`N=${n}: ack → pair p95`, runs, (r) => r.pairP95, "ms");
    row(`N=${n}: ack → all others p50`, runs, (r) => r.allP50, "ms");
    row(`N=${n}: ack → all others p95`, runs, (r) => r.allP95, "ms");
    row(`N=${n}: patch send → 200 p50`, runs, (r) => r.patchP50, "ms");
    row(`N=${n}: patch send → 200 p95`, runs, (r) => r.patchP95, "ms");
    const statuses = runs.map((r) => Object.entries(r.statuses).map(([s, c]) => `${s}: ${c}`).join(" ")).join(" / ");
    result.notes.push(
      `N=${n} (${runs.length} runs): statuses ${statuses}; unanswered at the drain bound ${runs.map((r) => r.unanswered).join(", ")}; re-syncs ${runs.reduce((s, r) => s + r.resyncs, 0)}; undelivered pairs ${runs.map((r) => r.undelivered).join(", ")} of ${runs.map((r) => r.pairs).join(", ")}.`,
    );
  }
  let largest = 0;
  for (const [n, runs] of byLevel) {
    const usable = !runs.some((r) => r.loadBound);
    if (usable && median(runs.map((r) => r.e2eP95)) < TARGET_P95_MS && median(runs.map((r) => r.acknowledgedShare)) >= MIN_ACKNOWLEDGED && n > largest) largest = n;
  }
  result.notes.unshift(`Largest N whose median end-to-end p95 stays under 1 s with ≥ 99 % acknowledged (and no load-bound run): ${largest || "none"}.`);
}

/** The target at N = 1,000: end-to-end p95 < 1 s and ≥ 99 % acknowledged; not evaluated when the load generator was the bound. */
export function authorsTarget(runs: readonly AuthorsRun[] | undefined): TargetResult | undefined {
  if (!runs || runs.length === 0) return undefined;
  const p95 = median(runs.map((r) => r.e2eP95));
  const acknowledged = median(runs.map((r) => r.acknowledgedShare));
  const bound = runs.filter((r) => r.loadBound);
  const figures = `end-to-end p95 ${formatNumber(p95)} ms, ${formatNumber(acknowledged * 100)} % acknowledged`;
  const base = {
    id: "authors-e2e-p95",
    label: `authors (service on one core): end-to-end p95 (send → arrival at every other author) at N = ${TARGET_N} under 1 s, with ≥ 99 % of patches acknowledged`,
    value: p95 / TARGET_P95_MS,
    threshold: "< 1.0 (p95 / 1 s) and ≥ 99 % acknowledged",
  };
  if (bound.length > 0) {
    return {
      ...base,
      measured: `not measured: the load generator was the bound in ${bound.length} of ${runs.length} run(s) (CPU ${bound.map((r) => r.loadCores.toFixed(2)).join(", ")} cores, event-loop delay p99 ${bound.map((r) => r.loadEventLoopP99Ms.toFixed(0)).join(", ")} ms, waited for its CPU ${bound.map((r) => (r.loadWaitShare * 100).toFixed(0)).join(", ")} % of the window; ${LOAD_BOUND_RULE}); its figures: ${figures}`,
      met: false,
    };
  }
  return { ...base, measured: figures, met: p95 < TARGET_P95_MS && acknowledged >= MIN_ACKNOWLEDGED };
}
