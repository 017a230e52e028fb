import { beginResult, checkDeadline, type BenchContext, type Scenario } from "../lib/context.js";
import { startService, type ServiceUnderTest } from "../lib/service.js";
import { figure, median } from "../lib/stats.js";
import { cpuPerRequestUs, describeStatuses, runClosedLoop, type ClosedLoopRun, type PlannedPhase } from "./closed-loop-runs.js";

const CLIENTS = 50;
const ID = "metrics-overhead";
const TITLE = "Metrics overhead: hot document with metrics on and off";

/**
 * The hot-document load (50 closed-loop clients patching one document) against two service
 * processes, one with the metrics on (the default) and one with service.metrics.enabled=false, their
 * runs interleaved (in alternating order) in one load generator so that they share the machine's noise.
 */
async function measure(context: BenchContext) {
  const { result, finish } = beginResult(ID, TITLE, context.backend);
  const timing = context.quick ? { runs: 2, warmupMs: 500, measureMs: 1500 } : { runs: 4, warmupMs: 700, measureMs: 3000 };
  const servers: ServiceUnderTest[] = [];
  try {
    const common = { build: context.build, backend: context.backend, tmp: context.tmp, ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}) };
    const on = await startService(common);
    servers.push(on);
    const off = await startService({ ...common, env: { SERVICE_METRICS_ENABLED: "false" } });
    servers.push(off);
    checkDeadline(context, ID);

    const phases: PlannedPhase[] = [];
    for (let run = 0; run < timing.runs; run++) {
      const pair: PlannedPhase[] = [
        { key: "on", server: on, mode: "patch", documents: 1 },
        { key: "off", server: off, mode: "patch", documents: 1 },
      ];
      phases.push(...(run % 2 === 0 ? pair : pair.reverse()));
    }
    context.log(`${phases.length} phases of ${timing.warmupMs} + ${timing.measureMs} ms in one load-generator process`);
    const measured = await runClosedLoop(context, phases, { clients: CLIENTS, warmupMs: timing.warmupMs, measureMs: timing.measureMs });
    const runs: Record<string, ClosedLoopRun[]> = { on: [], off: [] };
    for (const phase of measured) runs[phase.key]!.push(phase);
    for (const [key, name] of [["on", "metrics on"], ["off", "metrics off"]] as const) {
      const list = runs[key]!;
      result.rows.push({ label: `${name}: accepted/s`, figure: figure(list.map((r) => r.ratePerSecond), "req/s") });
      result.rows.push({ label: `${name}: p50 latency`, figure: figure(list.map((r) => r.p50Ms), "ms") });
      result.rows.push({ label: `${name}: p99 latency`, figure: figure(list.map((r) => r.p99Ms), "ms") });
      result.rows.push({ label: `${name}: server CPU in window`, figure: figure(list.map((r) => r.serverCores), "cores") });
      // Less at the mercy of other load on the machine than the rate: what one patch cost the server.
      result.rows.push({ label: `${name}: server CPU per accepted patch`, figure: figure(list.map(cpuPerRequestUs), "µs") });
    }
    const onRate = median(runs.on!.map((r) => r.ratePerSecond));
    const offRate = median(runs.off!.map((r) => r.ratePerSecond));
    const paired = runs.on!.map((r, i) => r.ratePerSecond / (runs.off![i]?.ratePerSecond ?? Number.NaN));
    const cpuPerPatch = (list: ClosedLoopRun[]) => median(list.map(cpuPerRequestUs));
    result.method.push(
      `${CLIENTS} clients in one load-generator process, each with one request in flight (closed loop), ${timing.warmupMs} ms warm-up, then ${timing.measureMs} ms measured; ${timing.runs} runs per service, on and off alternating (on first in even runs, off first in odd ones).`,
      "Two service processes on their own stores, the same build: one with the defaults (metrics on: every request observed in the duration histogram, every patch, commit and feed answer counted), one with SERVICE_METRICS_ENABLED=false (no /metrics, no observers). Each client owns one line of one shared document and replaces it, as in the hot-document scenario.",
      "Nothing scrapes /metrics during the runs: the cost measured is the bookkeeping on every request, not the rendering.",
    );
    result.notes.push(`Statuses (on): ${describeStatuses(runs.on!)}; (off): ${describeStatuses(runs.off!)}.`);
    result.notes.push(`Paired runs, on / off: ${paired.map((v) => v.toFixed(3)).join(", ")}.`);
    result.notes.push(`Server CPU per accepted patch, off / on (1.0: the metrics cost nothing measurable): ${(cpuPerPatch(runs.off!) / cpuPerPatch(runs.on!)).toFixed(3)}.`);
    result.targets.push({
      id: "metrics-on-vs-off",
      label: `hot document (${context.backend}): accepted patches/s with metrics on vs off`,
      measured: `${onRate.toFixed(0)} / ${offRate.toFixed(0)} req/s`,
      value: onRate / offRate,
      threshold: "≥ 0.95",
      met: onRate / offRate >= 0.95,
    });
  } finally {
    for (const server of servers.reverse()) await server.close().catch(() => undefined);
  }
  return finish();
}

export const metricsOverhead: Scenario = {
  id: ID,
  title: TITLE,
  budgetS: { full: 60, quick: 30 },
  run: measure,
};
