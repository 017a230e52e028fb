import type { ClosedLoopResult, Phase } from "../load/closed-loop.js";
import { type BenchContext } from "../lib/context.js";
import { CpuSampler } from "../lib/cpu-sampler.js";
import { isLoadBound } from "../lib/load-bound.js";
import { forkLoad, type ServerHandle } from "../lib/processes.js";

/** One closed-loop phase's result, with the server's CPU use in the measurement window. */
export interface ClosedLoopRun extends ClosedLoopResult {
  serverCores: number;
  /** Server CPU time (all threads) in the measurement window. */
  serverCpuMs: number;
  /** Run-queue wait of the server's main thread as a share of the window (other load on its CPU). */
  serverWaitShare: number;
}

/** Server CPU time per request answered 200 in the window (an accepted patch, a JSON answer, a row written), in µs. */
export function cpuPerRequestUs(run: ClosedLoopRun): number {
  return (run.serverCpuMs * 1000) / run.completed;
}

/** A closed-loop phase whose load generator used ≥ 0.9 of its core, or whose event loop lagged > 50 ms (p99): then it, not the server, may have set the rate. */
export function loadBound(run: ClosedLoopResult): boolean {
  return isLoadBound(run.loadCpuMs / run.windowMs, run.loadEventLoopP99Ms);
}

export interface PlannedPhase {
  key: string;
  server: ServerHandle;
  mode: Phase["mode"];
  documents?: number;
}

/** Runs bench/load/closed-loop.ts once, in its own process, through `phases` in order. */
export async function runClosedLoop(
  context: BenchContext,
  phases: PlannedPhase[],
  timing: { clients: number; warmupMs: number; measureMs: number },
): Promise<ClosedLoopRun[]> {
  const remaining = context.deadline - performance.now();
  const perPhase = timing.warmupMs + timing.measureMs + 30_000;
  const timeLimitMs = Math.max(10_000, Math.min(remaining, phases.length * perPhase + 60_000));
  const samplers = new Map<ServerHandle, CpuSampler>();
  for (const phase of phases) if (!samplers.has(phase.server)) samplers.set(phase.server, new CpuSampler(phase.server.pid, 100));
  const load = forkLoad("closed-loop", {
    ...timing,
    timeLimitMs,
    phases: phases.map(({ key, server, mode, documents }) => ({ key, origin: server.origin, mode, ...(documents ? { documents } : {}) })),
  });
  try {
    const message = await load.next<{ type: "result"; data: ClosedLoopResult[] }>("result", timeLimitMs + 15_000);
    samplers.forEach((sampler) => sampler.stop());
    return message.data.map((result, i) => {
      const sampler = samplers.get(phases[i]!.server)!;
      const { windowStart, windowEnd } = result;
      return {
        ...result,
        serverCores: sampler.coresBetween(windowStart, windowEnd),
        serverCpuMs: sampler.cpuMsBetween(windowStart, windowEnd),
        serverWaitShare: sampler.waitShareBetween(windowStart, windowEnd),
      };
    });
  } finally {
    samplers.forEach((sampler) => sampler.stop());
    load.kill();
    await load.exited();
  }
}

/** `{200: 1234, 409: 2}` as text. */
export function describeStatuses(runs: readonly { statuses: Record<string, number> }[]): string {
  const total: Record<string, number> = {};
  for (const run of runs) for (const [status, count] of Object.entries(run.statuses)) total[status] = (total[status] ?? 0) + count;
  return Object.entries(total)
    .map(([status, count]) => `${status}: ${count}`)
    .join(", ");
}
