import type { AuthorsResult } from "../load/authors.js";
import { wallNow } from "../lib/child.js";
import { beginResult, measureLevels, runsThatFit, type BenchContext, type Scenario } from "../lib/context.js";
import { CpuSampler } from "../lib/cpu-sampler.js";
import { API, createPool, requestJson } from "../lib/http.js";
import { isLoadBound, LOAD_BOUND_RULE } from "../lib/load-bound.js";
import { forkLoad, type LoadHandle } from "../lib/processes.js";
import { startService } from "../lib/service.js";
import { percentile } from "../lib/stats.js";
import { analyse, INTERVAL_MS, TARGET_N, type AuthorsRun } from "./authors-analysis.js";
import { authorsRows, authorsTarget } from "./authors-report.js";

export interface Plan {
  levels: number[];
  runs: number;
  warmupMs: number;
  measureMs: number;
  drainMs: number;
}

/** BENCH_AUTHORS_LEVELS=400,1000 measures only those N (for looking into one level; not for the published figures). */
function planFor(context: BenchContext): Plan {
  const levels = process.env.BENCH_AUTHORS_LEVELS?.split(",").map(Number).filter((n) => Number.isInteger(n) && n > 1);
  const plan = context.quick
    ? { levels: [20, 50, 100], runs: 1, warmupMs: 800, measureMs: 1600, drainMs: 2000 }
    : // 3 s of warm-up: each run starts a fresh service process, and after 0.8 s V8's optimizing
      // compiler still took a quarter of its core (its four threads, measured with perf), so the
      // window measured a cold process and the tail of the start-up wave
      // (docs/benchmarks-history.md, second session of 2026-11-24).
      { levels: [50, 100, 200, 400, 800, 1000], runs: 3, warmupMs: 3000, measureMs: 2400, drainMs: 3000 };
  return levels && levels.length > 0 ? { ...plan, levels } : plan;
}

async function createDocument(origin: string, n: number): Promise<{ id: string; text: string; version: number }> {
  const text = Array.from({ length: n }, (_, i) => `author ${i} starts here`).join("\n");
  const pool = createPool(origin, 1);
  try {
    const created = await requestJson<{ id: string; version: number }>(pool, "POST", `${API}/documents`, { title: "authors", content: text });
    if (created.status !== 201 || !created.body) throw new Error(`POST /documents answered ${created.status}`);
    return { id: created.body.id, text, version: created.body.version };
  } finally {
    await pool.close();
  }
}

/** The one load-generator process of an N (all N authors, on the load side's core), kept for all its runs. */
function startGenerator(n: number, plan: Plan): LoadHandle {
  const config = { firstAuthor: 0, authors: n, totalAuthors: n, intervalMs: INTERVAL_MS, warmupMs: plan.warmupMs, measureMs: plan.measureMs, drainMs: plan.drainMs, timeLimitMs: 600_000 };
  return forkLoad("authors", config);
}

/** One run on a fresh service (an overloaded run leaves a backlog that must not spill into the next). */
async function runOnce(context: BenchContext, load: LoadHandle, n: number, plan: Plan, profileDir?: string): Promise<AuthorsRun> {
  const marks: [string, number][] = [["start", performance.now()]];
  const mark = (name: string) => marks.push([name, performance.now()]);
  const service = await startService({
    build: context.build,
    backend: context.backend,
    tmp: context.tmp,
    ...(profileDir ? { profileDir } : {}),
    ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}),
  });
  const sampler = new CpuSampler(service.pid, 100);
  const loadSampler = new CpuSampler(load.pid, 100);
  try {
    mark("service");
    const document = await createDocument(service.origin, n);
    mark("document");
    load.send({ type: "run", origin: service.origin, documentId: document.id, text: document.text, version: document.version });
    await load.next("ready", 90_000);
    mark("ready");
    const startAt = wallNow() + 300;
    load.send({ type: "start", startAt });
    const drained = await load.next<{ type: "drained"; maxVersion: number }>("drained", plan.warmupMs + plan.measureMs + plan.drainMs + 30_000);
    mark("drained");
    load.send({ type: "finish", maxVersion: drained.maxVersion });
    const result = (await load.next<{ type: "run-result"; data: AuthorsResult }>("run-result", plan.drainMs + 60_000)).data;
    mark("results");
    sampler.stop();
    loadSampler.stop();
    const windowStart = startAt + plan.warmupMs;
    const windowEnd = windowStart + plan.measureMs;
    const delays = analyse(result, windowStart, windowEnd);
    const serviceCpuMs = sampler.cpuMsBetween(windowStart, windowEnd);
    const loadCores = loadSampler.coresBetween(windowStart, windowEnd);
    return {
      n,
      ...delays,
      patchP50: percentile(result.patchLatencies, 50),
      patchP95: percentile(result.patchLatencies, 95),
      acceptedPerSecond: (delays.acceptedInWindow / plan.measureMs) * 1000,
      skippedTickShare: result.skippedTicks / Math.max(1, result.ticks),
      statuses: result.statuses,
      unanswered: result.unanswered,
      resyncs: result.resyncs,
      feedAnswersPerSecond: (result.feedAnswersInWindow / plan.measureMs) * 1000,
      serverCores: serviceCpuMs / plan.measureMs,
      cpuPerPatchUs: (serviceCpuMs * 1000) / delays.acceptedInWindow,
      cpuPerFeedAnswerUs: (serviceCpuMs * 1000) / result.feedAnswersInWindow,
      loadCores,
      loadEventLoopP99Ms: result.loadEventLoopP99Ms,
      loadBound: isLoadBound(loadCores, result.loadEventLoopP99Ms),
      serverWaitShare: sampler.waitShareBetween(windowStart, windowEnd),
      loadWaitShare: loadSampler.waitShareBetween(windowStart, windowEnd),
    };
  } finally {
    sampler.stop();
    loadSampler.stop();
    // Its backlog is of no interest: a short grace, then SIGKILL (unless a profile must be written).
    await service.close(profileDir ? 20_000 : 2_000);
    mark("closed");
    if (process.env.BENCH_DEBUG) context.log(`N=${n} phases: ${marks.slice(1).map(([name, at], i) => `${name} ${((at - marks[i]![1]) / 1000).toFixed(1)} s`).join(", ")}`);
  }
}

/** Rough wall time of one run, to stop before the scenario's deadline rather than fail at it. */
function runCostMs(plan: Plan, n: number): number {
  return 3500 + plan.warmupMs + plan.measureMs + (n >= 200 ? 2 * plan.drainMs : plan.drainMs / 2);
}

async function measureLevel(context: BenchContext, n: number, plan: Plan, profileDir?: string): Promise<AuthorsRun[]> {
  const load = startGenerator(n, plan);
  try {
    return await runsThatFit(context, plan.runs, runCostMs(plan, n), async (run) => {
      const r = await runOnce(context, load, n, plan, profileDir);
      context.log(
        `N=${n} run ${run + 1}: end to end p50 ${r.e2eP50.toFixed(0)} ms, p95 ${r.e2eP95.toFixed(0)} ms; ${(r.acknowledgedShare * 100).toFixed(1)} % acknowledged; ${(r.skippedTickShare * 100).toFixed(0)} % ticks skipped; ${r.acceptedPerSecond.toFixed(0)} patches/s; service ${r.serverCores.toFixed(2)} cores, ${r.cpuPerPatchUs.toFixed(0)} µs/patch, ${r.cpuPerFeedAnswerUs.toFixed(0)} µs/feed answer; load generator ${r.loadCores.toFixed(2)} cores, event-loop p99 ${r.loadEventLoopP99Ms.toFixed(0)} ms${r.loadBound ? " (LOAD-BOUND)" : ""}; waited for their CPU: service ${(r.serverWaitShare * 100).toFixed(0)} %, load generator ${(r.loadWaitShare * 100).toFixed(0)} % of the window`,
      );
      return r;
    });
  } finally {
    load.send({ type: "run", done: true });
    await load.exited(5_000).catch(() => undefined);
    load.kill();
  }
}

export const authors: Scenario = {
  id: "authors",
  title: "Authors on one document: a patch's way from its sender to every other author",
  budgetS: { full: 185, quick: 45 },
  run: async (context) => {
    const { result, finish } = beginResult(authors.id, authors.title, context.backend);
    const plan = planFor(context);
    // A level too late to fit even one run is not started.
    const byLevel = await measureLevels(result, "N", plan.levels, async (n) =>
      performance.now() + runCostMs(plan, n) + 3000 > context.deadline ? [] : measureLevel(context, n, plan),
    );
    result.method.push(
      `N authors on one document of N lines; each sends a one-line patch (its own line) every ${INTERVAL_MS} ms, skipping a tick while its previous patch is in flight, and keeps one long-poll (GET …/changes?since=<its version>&wait=60) open; ${plan.runs} run(s) per N, each on a fresh service process and document (an overloaded run leaves a backlog behind); ${plan.warmupMs} ms warm-up, ${plan.measureMs} ms measured, then the feeds drain (≤ ${plan.drainMs} ms).`,
      "An author's view advances with every feed answer and with its own 200s (`opsSinceBase` + its rebased op), as an editor's does. Headline, \"end to end\": per patch, from the moment its author sent it to the moment the last other author's view included its version (the slowest of the N − 1), percentiles over patches. \"send → pair\": the same from send, over every (patch, other author) pair. Secondary, from the sender's 200 instead of the send: \"ack → pair\" and \"ack → all others\".",
      "Counted: every patch alive during the window (sent before its end, not acknowledged before its start); one acknowledged by the drain bound with its real delays, one without a 200 by then (aborted, failed, 409/422) as never arriving at any other author (infinite), so an overloaded service cannot look fast by answering few patches. \"Never acknowledged\" is the share of those patches without a 200.",
      "One load-generator process for all N authors (two raw keep-alive connections per author, one ticker for all, one text per version shared by all authors); times are wall-clock (performance.timeOrigin + now).",
      `Service CPU per accepted patch / per feed answer: the service process's CPU time (all threads) inside the window, divided by the 200s / the feed answers (200 and 204) that arrived in the window; each figure charges all the service's work to one kind of request. Load-bound: ${LOAD_BOUND_RULE}; then its figures are not the service's, and the target is not evaluated. "Main thread waited for its CPU": the run-queue time of the process's main thread (/proc/<pid>/task/<pid>/schedstat) as a share of the window: how much other processes (or its own helper threads) on its CPU held the event loop back; a load generator held back that way lags too, and counts as load-bound.`,
    );
    authorsRows(result, byLevel);
    const target = authorsTarget(byLevel.get(TARGET_N));
    if (target) result.targets.push(target);
    return finish();
  },
  profile: async (context, profileDir) => {
    const n = context.quick ? 100 : TARGET_N;
    await measureLevel(context, n, { ...planFor(context), runs: 1 }, profileDir);
    return { command: `one authors run at N = ${n} with the service under --cpu-prof` };
  },
};
