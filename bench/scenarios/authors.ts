import type { AuthorsResult } from "../load/authors.js";
import { wallNow } from "../lib/child.js";
import { beginResult, type BenchContext, type Scenario } from "../lib/context.js";
import { CpuSampler } from "../lib/cpu-sampler.js";
import { API, createPool, requestJson } from "../lib/http.js";
import { forkLoad, type LoadHandle } from "../lib/processes.js";
import { startService } from "../lib/service.js";
import { figure, formatNumber, Histogram, median, percentile } from "../lib/stats.js";

const INTERVAL_MS = 400;
const TARGET_N = 1000;
const TARGET_P95_MS = 1000;

interface Plan {
  levels: number[];
  runs: number;
  warmupMs: number;
  measureMs: number;
  drainMs: number;
}

/** BENCH_AUTHORS_LEVELS=400,1000 measures only those N (for looking into one level; not for the published figures). */
function planFor(context: BenchContext): Plan {
  const levels = process.env.BENCH_AUTHORS_LEVELS?.split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0);
  const plan = planForMode(context);
  return levels && levels.length > 0 ? { ...plan, levels } : plan;
}

function planForMode(context: BenchContext): Plan {
  return context.quick
    ? { levels: [20, 50, 100], runs: 1, warmupMs: 800, measureMs: 1600, drainMs: 2000 }
    : { levels: [50, 100, 200, 400, 800, 1000], runs: 3, warmupMs: 800, measureMs: 2400, drainMs: 3000 };
}

/** Load-generator processes for N authors: one up to 400, two above (so one process's event loop does not add to the delays). */
function processesFor(n: number): number {
  return n > 400 ? 2 : 1;
}

export interface AuthorsRun {
  n: number;
  acknowledgedShare: number;
  sendP50: number;
  sendP95: number;
  patchP50: number;
  patchP95: number;
  unanswered: number;
  pairP50: number;
  pairP95: number;
  allP50: number;
  allP95: number;
  pairs: number;
  undelivered: number;
  acceptedPerSecond: number;
  skippedTickShare: number;
  statuses: Record<string, number>;
  resyncs: number;
  feedAnswers: number;
  serverCores: number;
  /** Cores used by the load-generator processes together in the window (they share the machine's 2 with the service). */
  loadCores: number;
  loadEventLoopP99Ms: number;
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

/**
 * Joins acknowledgements and views: for every patch acknowledged in the window, when every other
 * author's view first included its version, measured from the acknowledgement (the target's
 * definition) and from the moment the patch was sent (what an author waits end to end).
 */
function analyse(results: AuthorsResult[], windowStart: number, windowEnd: number) {
  const views: { versions: number[]; times: number[] }[] = results.flatMap((r) => r.views);
  const pairs = new Histogram(60_000);
  const fromSend = new Histogram(60_000);
  const perPatch: number[] = [];
  let undelivered = 0;
  let accepted = 0;
  let counted = 0;
  for (const result of results) {
    const { versions, times, senders, sentAt } = result.acks;
    for (let k = 0; k < versions.length; k++) {
      const ackAt = times[k]!;
      if (ackAt >= windowStart && ackAt <= windowEnd) accepted++;
      // Every patch alive in the window counts: sent by its end, and not acknowledged before its start.
      if (ackAt < windowStart || sentAt[k]! > windowEnd) continue;
      counted++;
      const version = versions[k]!;
      let worst = 0;
      for (let author = 0; author < views.length; author++) {
        if (author === senders[k]) continue;
        const view = views[author]!;
        // The first moment this author's view reached `version` (views only ever advance).
        let low = 0;
        let high = view.versions.length;
        while (low < high) {
          const middle = (low + high) >> 1;
          if (view.versions[middle]! >= version) high = middle;
          else low = middle + 1;
        }
        const seenAt = low < view.versions.length ? view.times[low]! : Number.POSITIVE_INFINITY;
        const delay = Math.max(0, seenAt - ackAt);
        if (!Number.isFinite(delay)) undelivered++;
        pairs.add(delay);
        fromSend.add(seenAt - sentAt[k]!);
        if (delay > worst) worst = delay;
      }
      perPatch.push(worst);
    }
  }
  // A patch alive in the window that never got its 200 (still unanswered at the drain bound and
  // aborted, failed, 409/422) reached nobody as far as its author knows: every pair counts as never.
  let failed = 0;
  for (const result of results) {
    for (const sentAt of result.failedSentAt) {
      if (sentAt > windowEnd) continue;
      failed++;
      for (let other = 1; other < views.length; other++) {
        pairs.add(Number.POSITIVE_INFINITY);
        fromSend.add(Number.POSITIVE_INFINITY);
      }
      perPatch.push(Number.POSITIVE_INFINITY);
    }
  }
  return {
    acknowledgedShare: counted / Math.max(1, counted + failed),
    pairP50: pairs.percentile(50),
    pairP95: pairs.percentile(95),
    sendP50: fromSend.percentile(50),
    sendP95: fromSend.percentile(95),
    allP50: percentile(perPatch, 50),
    allP95: percentile(perPatch, 95),
    pairs: pairs.count,
    undelivered,
    acceptedPerSecond: (accepted / (windowEnd - windowStart)) * 1000,
  };
}

/** The load-generator processes of one N, kept for all its runs. */
interface Generators {
  loads: LoadHandle[];
  close(): Promise<void>;
}

function startGenerators(n: number, plan: Plan): Generators {
  const processCount = processesFor(n);
  const loads: LoadHandle[] = [];
  for (let p = 0; p < processCount; p++) {
    const first = Math.floor((p * n) / processCount);
    const last = Math.floor(((p + 1) * n) / processCount);
    loads.push(
      forkLoad("authors", {
        firstAuthor: first,
        authors: last - first,
        totalAuthors: n,
        intervalMs: INTERVAL_MS,
        warmupMs: plan.warmupMs,
        measureMs: plan.measureMs,
        drainMs: plan.drainMs,
        timeLimitMs: 600_000,
      }),
    );
  }
  return {
    loads,
    close: async () => {
      loads.forEach((load) => load.send({ type: "run", done: true }));
      await Promise.all(loads.map((load) => load.exited(5_000)));
    },
  };
}

/** One run on a fresh service (an overloaded run leaves a backlog that must not spill into the next). */
async function runOnce(context: BenchContext, generators: Generators, n: number, plan: Plan, profileDir?: string): Promise<AuthorsRun> {
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
  const loadSamplers = generators.loads.map((load) => new CpuSampler(load.pid, 100));
  try {
    mark("service");
    const document = await createDocument(service.origin, n);
    mark("document");
    const { loads } = generators;
    loads.forEach((load) => load.send({ type: "run", origin: service.origin, documentId: document.id, text: document.text, version: document.version }));
    await Promise.all(loads.map((load) => load.next("ready", 90_000)));
    mark("ready");
    const startAt = wallNow() + 300;
    loads.forEach((load) => load.send({ type: "start", startAt }));
    const drained = await Promise.all(
      loads.map((load) => load.next<{ type: "drained"; maxVersion: number }>("drained", plan.warmupMs + plan.measureMs + plan.drainMs + 30_000)),
    );
    mark("drained");
    const maxVersion = Math.max(...drained.map((d) => d.maxVersion));
    loads.forEach((load) => load.send({ type: "finish", maxVersion }));
    const results = (await Promise.all(loads.map((load) => load.next<{ type: "run-result"; data: AuthorsResult }>("run-result", plan.drainMs + 60_000)))).map(
      (message) => message.data,
    );
    mark("results");
    sampler.stop();
    for (const loadSampler of loadSamplers) loadSampler.stop();
    const windowStart = startAt + plan.warmupMs;
    const windowEnd = windowStart + plan.measureMs;
    const statuses: Record<string, number> = {};
    for (const result of results) for (const [status, count] of Object.entries(result.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    const ticks = results.reduce((sum, r) => sum + r.ticks, 0);
    const latencies = results.flatMap((r) => r.patchLatencies);
    return {
      n,
      ...analyse(results, windowStart, windowEnd),
      patchP50: percentile(latencies, 50),
      patchP95: percentile(latencies, 95),
      skippedTickShare: results.reduce((sum, r) => sum + r.skippedTicks, 0) / Math.max(1, ticks),
      statuses,
      unanswered: results.reduce((sum, r) => sum + r.unanswered, 0),
      resyncs: results.reduce((sum, r) => sum + r.resyncs, 0),
      feedAnswers: results.reduce((sum, r) => sum + r.feedAnswers, 0),
      serverCores: sampler.coresBetween(windowStart, windowEnd),
      loadCores: loadSamplers.reduce((sum, loadSampler) => sum + loadSampler.coresBetween(windowStart, windowEnd), 0),
      loadEventLoopP99Ms: Math.max(...results.map((r) => r.loadEventLoopP99Ms)),
    };
  } finally {
    sampler.stop();
    for (const loadSampler of loadSamplers) loadSampler.stop();
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
  const generators = startGenerators(n, plan);
  const runs: AuthorsRun[] = [];
  try {
    for (let run = 0; run < plan.runs; run++) {
      if (performance.now() + runCostMs(plan, n) > context.deadline) break;
      const measured = await runOnce(context, generators, n, plan, profileDir);
      context.log(
        `N=${n} run ${run + 1}: pair p50 ${measured.pairP50.toFixed(0)} ms, p95 ${measured.pairP95.toFixed(0)} ms; all-others p95 ${measured.allP95.toFixed(0)} ms; patch p50 ${measured.patchP50.toFixed(0)} ms; ${(measured.acknowledgedShare * 100).toFixed(0)} % acknowledged; ${measured.acceptedPerSecond.toFixed(0)} patches/s; server ${measured.serverCores.toFixed(2)} cores`,
      );
      runs.push(measured);
    }
  } finally {
    await generators.close().catch(() => undefined);
    generators.loads.forEach((load) => load.kill());
  }
  return runs;
}

export const authors: Scenario = {
  id: "authors",
  title: "Authors on one document: acknowledgement → arrival at every other author",
  budgetS: { full: 185, quick: 45 },
  run: async (context) => {
    const { result, finish } = beginResult(authors.id, authors.title, context.backend);
    const plan = planFor(context);
    const byLevel = new Map<number, AuthorsRun[]>();
    const skipped: number[] = [];
    for (const n of plan.levels) {
      // Levels too late to fit even one run are skipped (and said so), not half-measured.
      if (performance.now() + runCostMs(plan, n) + 3000 > context.deadline) {
        skipped.push(n);
        continue;
      }
      const runs = await measureLevel(context, n, plan);
      if (runs.length > 0) byLevel.set(n, runs);
      else skipped.push(n);
    }
    if (skipped.length > 0) result.notes.push(`Not measured for lack of time in this run: N = ${skipped.join(", ")}.`);

    result.method.push(
      `N authors on one document of N lines; each sends a one-line patch (its own line) every ${INTERVAL_MS} ms, skipping a tick while its previous patch is in flight, and keeps one long-poll (GET …/changes?since=<its version>&wait=60) open; ${plan.runs} run(s) per N, each on a fresh document; ${plan.warmupMs} ms warm-up, ${plan.measureMs} ms measured, then the feeds drain (≤ ${plan.drainMs} ms).`,
      "Every run on a fresh service process (an overloaded run leaves a backlog behind). An author's view advances with every feed answer and with its own 200s (`opsSinceBase` + its rebased op), as an editor's does. Delay of a pair = the first time the other author's view includes the version − the time the sender got its 200 (never below 0); a patch never seen counts as infinite.",
      "\"pair\" percentiles run over every (patch, other author) pair; \"all others\" over patches, each taking its slowest other author (the time until every other author has it); \"from send\" measures the same pairs from the moment the patch was sent instead of its 200. Counted: every patch alive during the window (sent before its end, not acknowledged before its start); one acknowledged by the drain bound with its real delays, one without a 200 by then (aborted, failed, 409/422) as never arriving at any other author, so an overloaded service cannot look fast by answering few patches.",
      `Load generators: one process up to N = 400, two above; times are wall-clock (performance.timeOrigin + now) and comparable across them.`,
    );
    let largest = 0;
    let largestAll = 0;
    for (const [n, runs] of byLevel) {
      result.rows.push({ label: `N=${n}: pair p50`, figure: figure(runs.map((r) => r.pairP50), "ms") });
      result.rows.push({ label: `N=${n}: pair p95`, figure: figure(runs.map((r) => r.pairP95), "ms") });
      result.rows.push({ label: `N=${n}: all others p50`, figure: figure(runs.map((r) => r.allP50), "ms") });
      result.rows.push({ label: `N=${n}: all others p95`, figure: figure(runs.map((r) => r.allP95), "ms") });
      result.rows.push({ label: `N=${n}: pair p50 from send`, figure: figure(runs.map((r) => r.sendP50), "ms") });
      result.rows.push({ label: `N=${n}: pair p95 from send`, figure: figure(runs.map((r) => r.sendP95), "ms") });
      result.rows.push({ label: `N=${n}: patch send → 200, p50`, figure: figure(runs.map((r) => r.patchP50), "ms") });
      result.rows.push({ label: `N=${n}: patch send → 200, p95`, figure: figure(runs.map((r) => r.patchP95), "ms") });
      result.rows.push({ label: `N=${n}: patches acknowledged (of those sent)`, figure: figure(runs.map((r) => r.acknowledgedShare * 100), "%") });
      result.rows.push({ label: `N=${n}: accepted patches/s (offered ${(n * 1000) / INTERVAL_MS}/s)`, figure: figure(runs.map((r) => r.acceptedPerSecond), "req/s") });
      result.rows.push({ label: `N=${n}: ticks skipped (patch still in flight)`, figure: figure(runs.map((r) => r.skippedTickShare * 100), "%") });
      result.rows.push({ label: `N=${n}: server CPU`, figure: figure(runs.map((r) => r.serverCores), "cores") });
      result.rows.push({ label: `N=${n}: load generators' CPU`, figure: figure(runs.map((r) => r.loadCores), "cores") });
      const p95 = median(runs.map((r) => r.pairP95));
      if (p95 < TARGET_P95_MS && n > largest) largest = n;
      if (median(runs.map((r) => r.allP95)) < TARGET_P95_MS && n > largestAll) largestAll = n;
      const statuses = runs.map((r) => Object.entries(r.statuses).map(([s, c]) => `${s}: ${c}`).join(" ")).join(" / ");
      result.notes.push(
        `N=${n} (${runs.length} runs): statuses ${statuses}; unanswered at the drain bound ${runs.map((r) => r.unanswered).join(", ")}; re-syncs ${runs.reduce((s, r) => s + r.resyncs, 0)}; undelivered pairs ${runs.map((r) => r.undelivered).join(", ")} of ${runs.map((r) => r.pairs).join(", ")}; load-generator event-loop delay p99 ${runs.map((r) => r.loadEventLoopP99Ms.toFixed(0)).join(", ")} ms.`,
      );
    }
    result.notes.unshift(`Largest N whose median pair p95 stays under 1 s: ${largest || "none"}; by the stricter "all others" p95: ${largestAll || "none"}.`);
    const atTarget = byLevel.get(TARGET_N);
    if (atTarget) {
      const p95 = median(atTarget.map((r) => r.pairP95));
      result.targets.push({
        id: "authors-p95",
        label: `authors: p95 acknowledgement → arrival at N = ${TARGET_N} under 1 s`,
        measured: `pair p95 ${formatNumber(p95)} ms (all-others p95 ${formatNumber(median(atTarget.map((r) => r.allP95)))} ms; ${formatNumber(median(atTarget.map((r) => r.acknowledgedShare * 100)))} % of patches acknowledged)`,
        value: p95 / TARGET_P95_MS,
        threshold: "< 1.0 (p95 / 1 s)",
        met: p95 < TARGET_P95_MS,
      });
    }
    return finish();
  },
  profile: async (context, profileDir) => {
    const n = context.quick ? 100 : TARGET_N;
    await measureLevel(context, n, { ...planFor(context), runs: 1 }, profileDir);
    return { command: `one authors run at N = ${n} with the service under --cpu-prof` };
  },
};
