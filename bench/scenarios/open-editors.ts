/**
 * Open editors: E editors over E / 5 documents, each following its document (Folio: a held long poll,
 * or one Server-Sent Events stream), 20 % of them typing one one-line change a second; end to end
 * from a change's send to the last other editor of its document having it. The same load against the
 * peers (Hocuspocus, ShareDB; bench/baselines/, bench/load/peer-editors.ts), the servers alternating.
 * What an operator sizes a machine by (docs/benchmarks.md, "How to size a deployment").
 * Choices: BENCH_EDITORS_SERVERS=folio-poll,folio-stream,hocuspocus,sharedb (default all);
 * BENCH_EDITORS_CURSORS=1 (every typist also sends its cursor once a second, every server), =0 (never;
 * unset: the servers without cursors, then Folio's stream and Hocuspocus again with them).
 * Diagnostics: BENCH_EDITORS_LEVELS=1000,10000, _RUNS, _WARMUP_MS, _MEASURE_MS; _INSTANCES=2 on
 * PostgreSQL (_ROUTING=document: each document's editors on one instance).
 */
import type { EditorsConfig, EditorsResult } from "../load/editors.js";
import { wallNow } from "../lib/child.js";
import { beginResult, checkDeadline, positiveFromEnv, type BenchContext, type Scenario } from "../lib/context.js";
import { CpuSampler } from "../lib/cpu-sampler.js";
import { isLoadBound, LOAD_BOUND_CORES, LOAD_BOUND_DELAY_MS } from "../lib/load-bound.js";
import { readFileSync } from "node:fs";
import { readRss, waitForQuiet } from "../lib/proc.js";
import { forkLoad, type LoadHandle } from "../lib/processes.js";
import { startPeer, startService } from "../lib/service.js";
import type { PeerEditorsConfig } from "../load/peer-editors.js";
import type { ScenarioResult } from "../lib/results.js";
import { figure, formatNumber, median, percentile } from "../lib/stats.js";

const EDITORS_PER_DOCUMENT = 5;
const TYPING_SHARE = 0.2;
const INTERVAL_MS = 1000;
const WAIT_SECONDS = 25;
/** Editors per load-generator process. */
const EDITORS_PER_PROCESS = 2500;
export const TARGET_E = 10_000;
const TARGET_P95_MS = 250;
const MIN_ACKNOWLEDGED = 0.999;
/**
 * A run whose service main thread waited for its CPU this share of the window or more measured the
 * machine, not the service: other processes held the service's core (a shared machine), and the
 * run is reported but not counted for the largest E nor the target.
 */
const MACHINE_BOUND_WAIT = 0.2;

interface Plan {
  levels: number[];
  runs: number;
  warmupMs: number;
  measureMs: number;
  drainMs: number;
  /** Instances of the service (2: PostgreSQL only, diagnostics; docs/benchmarks.md, "How to size a deployment"). */
  instances: 1 | 2;
  /** The configurations measured at each level, alternating. */
  setups: Setup[];
}

/**
 * The configurations: BENCH_EDITORS_SERVERS, else every server on SQLite and Folio's two transports
 * on PostgreSQL (the peers keep their own stores, so a --pg run would only measure them again).
 */
function setupsFromEnv(backend: BenchContext["backend"]): Setup[] {
  const servers = process.env.BENCH_EDITORS_SERVERS
    ? process.env.BENCH_EDITORS_SERVERS.split(",").map((id) => id.trim()).filter((id): id is ServerId => (SERVER_IDS as readonly string[]).includes(id))
    : SERVER_IDS.filter((id) => backend === "sqlite" || id.startsWith("folio"));
  const cursors = process.env.BENCH_EDITORS_CURSORS;
  if (cursors === "1") return servers.map((server) => ({ server, cursors: true }));
  const plain = servers.map((server) => ({ server, cursors: false }));
  if (cursors === "0") return plain;
  // The default run: every server without cursors, then the stream and Hocuspocus with them (issue 36's comparison).
  return [...plain, ...servers.filter((server) => server === "folio-stream" || server === "hocuspocus").map((server) => ({ server, cursors: true }))];
}

/** The servers compared (Folio over each of its transports, and the peers). */
export type ServerId = "folio-poll" | "folio-stream" | "hocuspocus" | "sharedb";
export const SERVER_IDS: readonly ServerId[] = ["folio-poll", "folio-stream", "hocuspocus", "sharedb"];

/** One configuration measured: a server (and transport), with or without cursors. */
export interface Setup {
  server: ServerId;
  cursors: boolean;
}

/** The installed version of a peer's package, as its package.json says. */
function installed(name: string): string {
  return (JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), "utf8")) as { version: string }).version;
}

const SERVER_LABEL: Record<ServerId, string> = {
  "folio-poll": "Folio, long poll",
  "folio-stream": "Folio, event stream",
  hocuspocus: `Hocuspocus ${installed("@hocuspocus/server")}`,
  sharedb: `ShareDB ${installed("sharedb")}`,
};

/** What each server keeps of a change when it acknowledges it (docs/benchmarks.md, the side-by-side table). */
export const DURABILITY: Record<ServerId, string> = {
  "folio-poll": "every change durable (SQLite, committed before its 200) with its history",
  "folio-stream": "every change durable (SQLite, committed before its 200) with its history",
  hocuspocus: "Y.Doc in memory; the SQLite extension stores the whole document 2 s after the last change (at most 10 s apart), no history",
  sharedb: "memory only (ShareDB.MemoryDB): nothing survives a restart",
};

export function setupLabel(setup: Setup): string {
  if (!setup.cursors) return SERVER_LABEL[setup.server];
  const how = setup.server === "hocuspocus" ? "awareness" : setup.server === "sharedb" ? "presence" : setup.server === "folio-poll" ? "presence PUTs, not delivered over the poll" : "presence";
  return `${SERVER_LABEL[setup.server]}, cursors (${how})`;
}

export interface EditorsRun {
  setup: string;
  e: number;
  processes: number;
  e2eP50: number;
  e2eP95: number;
  e2eP99: number;
  acknowledgedShare: number;
  patchP95: number;
  acceptedPerSecond: number;
  feedAnswersPerSecond: number;
  skippedTickShare: number;
  serverCores: number;
  cpuPerPatchUs: number;
  /** The service's CPU per request answered in the window (patches and feed answers). */
  cpuPerRequestUs: number;
  serverWaitShare: number;
  loadCores: number;
  loadEventLoopP99Ms: number;
  loadBound: boolean;
  /** The service's main thread waited for its CPU ≥ {@link MACHINE_BOUND_WAIT} of the window. */
  machineBound: boolean;
  rssIdle: number;
  rssOpen: number;
  rssEnd: number;
  openMs: number;
  statuses: Record<string, number>;
  resyncs: number;
  feedErrors: number;
  /** Cursors on: presence frames (Folio's stream), awareness or presence messages (peers) received per second. */
  presencePerSecond: number;
  presenceStatuses: Record<string, number>;
}

/** A process's soft limit on open files (/proc/<pid>/limits, "Max open files"); Infinity when unlimited or unreadable. */
function openFilesLimit(pid: number | "self"): number {
  try {
    const match = /^Max open files\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"));
    return match && match[1] !== "unlimited" ? Number(match[1]) : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function planFor(context: BenchContext): Plan {
  const levels = process.env.BENCH_EDITORS_LEVELS?.split(",").map(Number).filter((n) => Number.isInteger(n) && n >= EDITORS_PER_DOCUMENT);
  const plan = context.quick
    ? { levels: [200], runs: 1, warmupMs: 2000, measureMs: 3000, drainMs: 3000 }
    : { levels: [1000, 2500, 5000, 7500, 10_000, 15_000], runs: 1, warmupMs: 3000, measureMs: 5000, drainMs: 3000 };
  return {
    ...plan,
    ...(levels && levels.length > 0 ? { levels } : {}),
    runs: positiveFromEnv("BENCH_EDITORS_RUNS", plan.runs),
    warmupMs: positiveFromEnv("BENCH_EDITORS_WARMUP_MS", plan.warmupMs),
    measureMs: positiveFromEnv("BENCH_EDITORS_MEASURE_MS", plan.measureMs),
    instances: process.env.BENCH_EDITORS_INSTANCES === "2" ? 2 : 1,
    setups: setupsFromEnv(context.backend),
  };
}

async function runOnce(context: BenchContext, e: number, plan: Plan, run: number, setup: Setup, profileDir?: string): Promise<EditorsRun> {
  const service = await startService({
    build: context.build,
    backend: context.backend,
    tmp: context.tmp,
    ...(profileDir ? { profileDir } : {}),
    ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}),
  });
  // BENCH_EDITORS_INSTANCES=2 (PostgreSQL only): a second instance on the same database, on the
  // load side's CPU, and every other editor of a document on it, as behind a round-robin balancer.
  const second = plan.instances === 2 && context.backend === "postgres"
    ? await startService({ build: context.build, backend: context.backend, tmp: context.tmp, storage: { url: service.storageUrl }, pinToLoadCpu: true })
    : undefined;
  const loads: LoadHandle[] = [];
  const samplers: CpuSampler[] = [];
  try {
    // One socket per editor and one more per typist (two with cursors) on the service's side (the load side splits them).
    const sockets = Math.ceil(e * (1 + TYPING_SHARE * (setup.cursors ? 2 : 1))) + 200;
    const limit = openFilesLimit(service.pid);
    if (sockets > limit) throw new Error(`E = ${e} needs about ${sockets} open files in the service, its limit is ${limit} (raise ulimit -n)`);
    await waitForQuiet(service.pid, { quietMs: 1000, maxMs: 5000 });
    const rssIdle = readRss(service.pid);
    const documents = e / EDITORS_PER_DOCUMENT;
    const processes = Math.max(1, Math.ceil(e / EDITORS_PER_PROCESS));
    for (let part = 0; part < processes; part++) {
      const share = Math.floor(documents / processes) + (part < documents % processes ? 1 : 0);
      const config: EditorsConfig = {
        origin: service.origin,
        ...(second ? { origins: [service.origin, second.origin], byDocument: process.env.BENCH_EDITORS_ROUTING === "document" } : {}),
        part,
        documents: share,
        editorsPerDocument: EDITORS_PER_DOCUMENT,
        typingShare: TYPING_SHARE,
        seed: 20_261_125 + run,
        intervalMs: INTERVAL_MS,
        transport: setup.server === "folio-stream" ? "stream" : "poll",
        cursors: setup.cursors,
        waitSeconds: WAIT_SECONDS,
        warmupMs: plan.warmupMs,
        measureMs: plan.measureMs,
        drainMs: plan.drainMs,
        timeLimitMs: 600_000,
      };
      loads.push(forkLoad("editors", config, { heapMb: 2048 }));
    }
    const window = await measureWindow(service.pid, loads, plan, samplers, second?.pid);
    return summarize(setup, e, processes, plan, window.data, window.serverSampler, window.loadSamplers, window.start, window.end, { rssIdle, rssOpen: window.rssOpen, rssEnd: window.rssEnd }, window.secondSampler);
  } finally {
    samplers.forEach((sampler) => sampler.stop());
    for (const load of loads) load.kill();
    await Promise.all(loads.map((load) => load.exited(5_000).catch(() => undefined)));
    await second?.close(2_000);
    await service.close(profileDir ? 20_000 : 2_000);
  }
}

/**
 * The measured part of a run, the same for Folio and the peers: once every load generator is ready
 * and the server idle, its memory with every editor connected (documents open, polls, streams or
 * WebSockets held), then the typing started on one clock, CPU sampled (the samplers go into
 * `samplers`, which the caller stops whatever happens) and the memory taken again at the window's end.
 */
async function measureWindow(pid: number, loads: LoadHandle[], plan: Plan, samplers: CpuSampler[], secondPid?: number) {
  await Promise.all(loads.map((load) => load.next("ready", 240_000)));
  await waitForQuiet(pid, { quietMs: 1500, maxMs: 20_000 });
  const rssOpen = readRss(pid);
  const serverSampler = new CpuSampler(pid, 100);
  const secondSampler = secondPid === undefined ? undefined : new CpuSampler(secondPid, 100);
  const loadSamplers = loads.map((load) => new CpuSampler(load.pid, 100));
  samplers.push(serverSampler, ...(secondSampler ? [secondSampler] : []), ...loadSamplers);
  const startAt = wallNow() + 300;
  for (const load of loads) load.send({ type: "start", startAt });
  const start = startAt + plan.warmupMs;
  const end = start + plan.measureMs;
  let rssEnd = 0;
  const rssTimer = setTimeout(() => (rssEnd = readRss(pid)), end - wallNow());
  const results = await Promise.all(loads.map((load) => load.next<{ type: "result"; data: EditorsResult }>("result", plan.warmupMs + plan.measureMs + 3 * plan.drainMs + 60_000)));
  clearTimeout(rssTimer);
  samplers.forEach((sampler) => sampler.stop());
  return { data: results.map((message) => message.data), serverSampler, secondSampler, loadSamplers, start, end, rssOpen, rssEnd };
}

/** Rough wall time of one run at E editors, to stop before the deadline rather than fail at it. */
function runCostMs(plan: Plan, e: number): number {
  return 8000 + e * 1.5 + plan.warmupMs + plan.measureMs + plan.drainMs;
}

/** A configuration whose p95 passed this at a level (or that delivered less than 99 %) is not run at higher levels. */
const GIVE_UP_P95_MS = 4 * TARGET_P95_MS;

const MIB = 1024 * 1024;

/** One run against a peer server (bench/baselines/<server>.ts) with bench/load/peer-editors.ts: the same load shape and the same figures as {@link runOnce}. */
async function runPeer(context: BenchContext, e: number, plan: Plan, run: number, setup: Setup): Promise<EditorsRun> {
  if (setup.server !== "hocuspocus" && setup.server !== "sharedb") throw new Error(`${setup.server} is not a peer`);
  const server = await startPeer(setup.server, context.tmp);
  const loads: LoadHandle[] = [];
  const samplers: CpuSampler[] = [];
  try {
    const sockets = e + 200;
    const limit = openFilesLimit(server.pid);
    if (sockets > limit) throw new Error(`E = ${e} needs about ${sockets} open files in the server, its limit is ${limit} (raise ulimit -n)`);
    await waitForQuiet(server.pid, { quietMs: 1000, maxMs: 5000 });
    const rssIdle = readRss(server.pid);
    const documents = e / EDITORS_PER_DOCUMENT;
    const processes = Math.max(1, Math.ceil(e / EDITORS_PER_PROCESS));
    for (let part = 0; part < processes; part++) {
      const share = Math.floor(documents / processes) + (part < documents % processes ? 1 : 0);
      const config: PeerEditorsConfig = {
        server: setup.server,
        origin: server.origin,
        part,
        documents: share,
        editorsPerDocument: EDITORS_PER_DOCUMENT,
        typingShare: TYPING_SHARE,
        seed: 20_261_125 + run,
        intervalMs: INTERVAL_MS,
        cursors: setup.cursors,
        warmupMs: plan.warmupMs,
        measureMs: plan.measureMs,
        drainMs: plan.drainMs,
        timeLimitMs: 600_000,
      };
      loads.push(forkLoad("peer-editors", config, { heapMb: 2048 }));
    }
    const window = await measureWindow(server.pid, loads, plan, samplers);
    return summarize(setup, e, processes, plan, window.data, window.serverSampler, window.loadSamplers, window.start, window.end, { rssIdle, rssOpen: window.rssOpen, rssEnd: window.rssEnd });
  } finally {
    samplers.forEach((sampler) => sampler.stop());
    for (const load of loads) load.kill();
    await Promise.all(loads.map((load) => load.exited(5_000).catch(() => undefined)));
    await server.stop(2_000);
  }
}

/** The figures of one run from what its load generators reported and the samplers saw. */
function summarize(
  setup: Setup,
  e: number,
  processes: number,
  plan: Plan,
  data: EditorsResult[],
  serviceSampler: CpuSampler,
  loadSamplers: CpuSampler[],
  windowStart: number,
  windowEnd: number,
  rss: { rssIdle: number; rssOpen: number; rssEnd: number },
  secondSampler?: CpuSampler,
): EditorsRun {
  const endToEnd = data.flatMap((d) => d.endToEnd);
  const sent = data.reduce((s, d) => s + d.sentInWindow, 0);
  const acknowledged = data.reduce((s, d) => s + d.acknowledgedInWindow, 0);
  const accepted = data.reduce((s, d) => s + d.acceptedInWindow, 0);
  // Both instances' CPU when there are two: the figures per patch and per request are the deployment's.
  const serviceCpuMs = serviceSampler.cpuMsBetween(windowStart, windowEnd) + (secondSampler?.cpuMsBetween(windowStart, windowEnd) ?? 0);
  const loadCores = loadSamplers.reduce((s, sampler) => s + sampler.coresBetween(windowStart, windowEnd), 0);
  const loadEventLoopP99Ms = Math.max(...data.map((d) => d.loadEventLoopP99Ms));
  const statuses: Record<string, number> = {};
  for (const d of data) for (const [key, value] of Object.entries(d.statuses)) statuses[key] = (statuses[key] ?? 0) + value;
  const presenceStatuses: Record<string, number> = {};
  for (const d of data) for (const [key, value] of Object.entries(d.presenceStatuses)) presenceStatuses[key] = (presenceStatuses[key] ?? 0) + value;
  return {
    setup: setupLabel(setup),
    e,
    processes,
    e2eP50: percentile(endToEnd, 50),
    e2eP95: percentile(endToEnd, 95),
    e2eP99: percentile(endToEnd, 99),
    acknowledgedShare: sent > 0 ? acknowledged / sent : Number.NaN,
    patchP95: percentile(data.flatMap((d) => d.patchLatencies), 95),
    acceptedPerSecond: (accepted / plan.measureMs) * 1000,
    feedAnswersPerSecond: (data.reduce((s, d) => s + d.feedAnswersInWindow, 0) / plan.measureMs) * 1000,
    skippedTickShare: data.reduce((s, d) => s + d.skippedTicks, 0) / Math.max(1, data.reduce((s, d) => s + d.ticks, 0)),
    serverCores: serviceCpuMs / plan.measureMs,
    cpuPerPatchUs: (serviceCpuMs * 1000) / accepted,
    cpuPerRequestUs: (serviceCpuMs * 1000) / (accepted + data.reduce((s, d) => s + d.feedAnswersInWindow, 0)),
    serverWaitShare: serviceSampler.waitShareBetween(windowStart, windowEnd),
    loadCores,
    loadEventLoopP99Ms,
    loadBound: isLoadBound(loadCores, loadEventLoopP99Ms),
    machineBound: serviceSampler.waitShareBetween(windowStart, windowEnd) >= MACHINE_BOUND_WAIT,
    ...rss,
    openMs: Math.max(...data.map((d) => d.openMs)),
    statuses,
    resyncs: data.reduce((s, d) => s + d.resyncs, 0),
    feedErrors: data.reduce((s, d) => s + d.feedErrors, 0),
    presencePerSecond: (data.reduce((s, d) => s + d.presenceFramesInWindow, 0) / plan.measureMs) * 1000,
    presenceStatuses,
  };
}

/** Runs one configuration once at E: Folio (either transport) or a peer. */
function runSetup(context: BenchContext, e: number, plan: Plan, run: number, setup: Setup, profileDir?: string): Promise<EditorsRun> {
  return setup.server === "folio-poll" || setup.server === "folio-stream" ? runOnce(context, e, plan, run, setup, profileDir) : runPeer(context, e, plan, run, setup);
}

/** Runs of each configuration by E. */
type Measured = Map<string, Map<number, EditorsRun[]>>;

/** The largest E whose median end-to-end p95 stays under the target with ≥ 99.9 % acknowledged (and no load- or machine-bound run); 0 when none. */
function largestWithinBound(byLevel: Map<number, EditorsRun[]>): number {
  let largest = 0;
  for (const [e, runs] of byLevel) {
    if (!runs.some((r) => r.loadBound || r.machineBound) && median(runs.map((r) => r.e2eP95)) < TARGET_P95_MS && median(runs.map((r) => r.acknowledgedShare)) >= MIN_ACKNOWLEDGED && e > largest) largest = e;
  }
  return largest;
}

/** Memory per open editor holding a stream that issue 35 allows. */
const STREAM_MEMORY_BOUND = 15 * 1024;

/**
 * Issue 35's and 36's targets beside the peers: Folio's stream reaches at least each peer's largest E
 * within the bound, holding a stream costs ≤ 15 KB per editor, and with cursors Folio's stream reaches at
 * least Hocuspocus's largest E with awareness on. Evaluated only when both sides ran in this run.
 */
function peerTargets(targets: ScenarioResult["targets"], plan: Plan, measured: Measured): void {
  const levels = (server: ServerId, cursors: boolean) => {
    const setup = plan.setups.find((s) => s.server === server && s.cursors === cursors);
    return setup ? measured.get(setupLabel(setup)) : undefined;
  };
  const tested = (byLevel: Map<number, EditorsRun[]> | undefined): byLevel is Map<number, EditorsRun[]> => byLevel !== undefined && byLevel.size > 0;
  const stream = levels("folio-stream", false);
  const compare = (id: string, label: string, ours: Map<number, EditorsRun[]>, theirs: Map<number, EditorsRun[]>, peer: string) => {
    const a = largestWithinBound(ours);
    const b = largestWithinBound(theirs);
    targets.push({
      id,
      label,
      measured: `largest E within the bound (p95 < ${TARGET_P95_MS} ms, ≥ 99.9 % acknowledged, no load- or machine-bound run): Folio ${a || "none"} (of ${[...ours.keys()].join(", ")}), ${peer} ${b || "none"} (of ${[...theirs.keys()].join(", ")})`,
      value: b > 0 ? a / b : Number.NaN,
      threshold: "≥ 1.0",
      met: a > 0 && a >= b,
    });
  };
  for (const [server, name] of [["hocuspocus", "Hocuspocus"], ["sharedb", "ShareDB"]] as const) {
    const peer = levels(server, false);
    if (tested(stream) && tested(peer)) compare(`open-editors-vs-${server}`, `open editors: Folio over the event stream reaches ${name}'s largest E (same load, same core, alternating)`, stream, peer, name);
  }
  const streamCursors = levels("folio-stream", true);
  const awareness = levels("hocuspocus", true);
  if (tested(streamCursors) && tested(awareness)) compare("open-editors-cursors-vs-hocuspocus", "open editors with every typist's cursor once a second: Folio's stream (presence) reaches Hocuspocus's largest E (awareness)", streamCursors, awareness, "Hocuspocus");
  if (tested(stream)) {
    const top = Math.max(...stream.keys());
    const memory = median(stream.get(top)!.map((r) => (r.rssOpen - r.rssIdle) / r.e));
    targets.push({
      id: "open-editors-stream-memory",
      label: "open editors: service memory per open editor holding an event stream (at the largest E measured)",
      measured: `${formatNumber(memory / 1024)} KB at E = ${top}`,
      value: memory / STREAM_MEMORY_BOUND,
      threshold: "≤ 1.0 (of 15 KB)",
      met: memory <= STREAM_MEMORY_BOUND,
    });
  }
}

export const openEditors: Scenario = {
  id: "open-editors",
  title: "Open editors: E editors over E / 5 documents, Folio (long poll, event stream) beside Hocuspocus and ShareDB, 20 % typing",
  budgetS: { full: 1500, quick: 120 },
  run: async (context) => {
    const { result, finish } = beginResult(openEditors.id, openEditors.title, context.backend);
    const plan = planFor(context);
    const measured: Measured = new Map(plan.setups.map((setup) => [setupLabel(setup), new Map<number, EditorsRun[]>()]));
    const givenUp = new Map<string, string>();
    const skipped: string[] = [];
    const tooMany: string[] = [];
    for (const [levelIndex, e] of plan.levels.entries()) {
      for (let run = 0; run < plan.runs; run++) {
        // The servers alternate: each round starts one further along the list.
        const shift = (levelIndex + run) % plan.setups.length;
        const order = [...plan.setups.slice(shift), ...plan.setups.slice(0, shift)];
        for (const setup of order) {
          const label = setupLabel(setup);
          if (givenUp.has(label)) continue;
          // One socket per editor, one more per Folio typist (two with cursors): a level over the open-file limit is left out.
          const files = (setup.server.startsWith("folio") ? Math.ceil(e * (1 + TYPING_SHARE * (setup.cursors ? 2 : 1))) : e) + 200;
          if (files > openFilesLimit("self")) {
            if (run === 0) tooMany.push(`${label} at E = ${e} (about ${files} open files, the limit is ${openFilesLimit("self")})`);
            continue;
          }
          if (performance.now() + runCostMs(plan, e) > context.deadline) {
            skipped.push(`${label} at E = ${e}`);
            continue;
          }
          checkDeadline(context, `open editors ${label} E=${e}`);
          let r: EditorsRun;
          try {
            r = await runSetup(context, e, plan, run, setup);
          } catch (error) {
            const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
            context.log(`${label} E=${e} run ${run + 1}: FAILED: ${message}`);
            result.notes.push(`${label} at E = ${e} (run ${run + 1}) failed: ${message}`);
            givenUp.set(label, `failed at E = ${e}`);
            continue;
          }
          const byLevel = measured.get(label)!;
          byLevel.set(e, [...(byLevel.get(e) ?? []), r]);
          context.log(
            `${label} E=${e} run ${run + 1}: end to end p50 ${r.e2eP50.toFixed(0)} ms, p95 ${r.e2eP95.toFixed(0)} ms; ${(r.acknowledgedShare * 100).toFixed(2)} % acknowledged; ${r.acceptedPerSecond.toFixed(0)} changes/s, ${r.feedAnswersPerSecond.toFixed(0)} deliveries/s${setup.cursors ? `, ${r.presencePerSecond.toFixed(0)} presence messages/s` : ""}; server ${r.serverCores.toFixed(2)} cores, ${r.cpuPerPatchUs.toFixed(0)} µs/change, RSS idle ${(r.rssIdle / MIB).toFixed(0)} → open ${(r.rssOpen / MIB).toFixed(0)} → typing ${(r.rssEnd / MIB).toFixed(0)} MiB; load ${r.processes} process(es) ${r.loadCores.toFixed(2)} cores, event-loop p99 ${r.loadEventLoopP99Ms.toFixed(0)} ms${r.loadBound ? " (LOAD-BOUND)" : ""}; server waited for its CPU ${(r.serverWaitShare * 100).toFixed(0)} % of the window${r.machineBound ? " (MACHINE-BOUND)" : ""}`,
          );
        }
      }
      for (const setup of plan.setups) {
        const label = setupLabel(setup);
        const runs = measured.get(label)!.get(e);
        if (!runs || givenUp.has(label)) continue;
        const p95 = median(runs.map((r) => r.e2eP95));
        if (!runs.every((r) => r.machineBound) && (p95 > GIVE_UP_P95_MS || median(runs.map((r) => r.acknowledgedShare)) < 0.99)) {
          givenUp.set(label, `saturated at E = ${e} (p95 ${formatNumber(p95)} ms)`);
        }
      }
    }
    if (skipped.length > 0) result.notes.push(`Not measured for lack of time in this run: ${skipped.join("; ")}.`);
    if (tooMany.length > 0) result.notes.push(`Not measured for the open-file limit (raise ulimit -n): ${tooMany.join("; ")}.`);
    for (const [label, why] of givenUp) result.notes.push(`${label}: not run at higher levels, ${why} (p95 over ${GIVE_UP_P95_MS} ms or under 99 % delivered).`);

    const folioPlan = plan.setups.some((s) => s.server.startsWith("folio"));
    const peers = plan.setups.some((s) => !s.server.startsWith("folio"));
    result.method.push(
      `E editors over E / ${EDITORS_PER_DOCUMENT} documents of 20 lines; ${TYPING_SHARE * 100} % of the editors (a seeded shuffle: some documents have no typist, some several) type one one-line change every ${INTERVAL_MS} ms, skipping a tick while their previous change is unacknowledged. ${plan.runs} run(s) per configuration and E, each on a fresh server, the configurations alternating (each round starts one further along: ${plan.setups.map(setupLabel).join("; ")}); ${plan.warmupMs} ms of typing as warm-up, ${plan.measureMs} ms measured, then ≤ ${plan.drainMs} ms for changes in flight and ≤ ${plan.drainMs} ms for the editors to catch up. A configuration whose p95 passed ${GIVE_UP_P95_MS} ms (or that delivered < 99 %) at one E is not run at the higher ones.`,
      ...(folioPlan
        ? [
            `Folio: each editor opens its document (GET) and then follows it as the SDK's client does, by one of two transports, the row saying which: "long poll" holds one long poll at all times (GET …/changes?since=<version of its last feed answer>&wait=${WAIT_SECONDS}); "event stream" closes the connection of its GET and holds one Server-Sent Events stream (GET …/events?since=<version> with Accept: text/event-stream, read from a raw socket, de-chunked; each \`event: change\` frame's \`id\` is the version it brings). A typist sends its one-line patch as the client sends it (PATCH …/content with baseVersion, checksum, clientId, seq and ops) on a connection of its own; acknowledged = its 200.`,
          ]
        : []),
      ...(peers
        ? [
            `Peers, the same shape from the same kind of load generator (bench/load/peer-editors.ts, one WebSocket per editor with \`ws\`, all on the load side's CPU): Hocuspocus (bench/baselines/hocuspocus.ts): each document a Y.Text of 20 lines seeded once through a WebSocket, each editor a Hocuspocus connection (auth, sync step 1); a typist replaces its line in its own Y.Doc and sends the Yjs update; acknowledged = Hocuspocus's sync-status reply; an editor has the change once an update message carrying the typist's (client, clock) arrives (Y.parseUpdateMeta). ShareDB (bench/baselines/sharedb.ts): each document \`{lines: [20 strings]}\` created over HTTP, each editor a ShareDB connection subscribed to it (its raw JSON protocol); a typist submits one json0 list replace at the newest version it knows (the server transforms it if behind); acknowledged = ShareDB's op ack; an editor has the change once the op with the typist's (src, seq) arrives. The peers' servers run through tsx with the Node.js flags of \`npm start\`, pinned like the service.`,
          ]
        : []),
      "Cursors (configurations marked so): every typist also sends its cursor once a second, half a second after its change: Folio: PUT …/presence/<clientId> with `{displayName, state: {cursor: {line, column}}}` on a third connection; the streams carry `event: presence` (coalesced by the service, at most 10 a second per document); over the long poll nobody receives them (the client reads the list at an interval; not simulated). Hocuspocus: a y-protocols awareness update with the cursor, relayed to every connection of the document. ShareDB: a presence submission (`{a: \"p\"}`), relayed to the document's subscribers.",
      `Open files: the service needs one per editor and one more per typist (two with cursors); the limit in this run was ${openFilesLimit("self")} (inherited from the runner's ulimit -n; a level that would exceed it fails at once).`,
      `Load generators: one process per ${EDITORS_PER_PROCESS.toLocaleString("en-US")} editors, each owning whole documents with all their editors (so a change and its arrivals are timed on one clock), all on the load side's CPU; their CPU is the sum over the processes, their event-loop delay the worst p99. A run counts as load-bound when they used ≥ ${LOAD_BOUND_CORES} cores together or one's event-loop delay p99 exceeded ${LOAD_BOUND_DELAY_MS} ms.`,
      `A run counts as machine-bound when the server's main thread waited for its CPU (run-queue time, /proc/<pid>/task/<pid>/schedstat) ${MACHINE_BOUND_WAIT * 100} % of the window or more: other processes held its core, and its figures are the machine's, not the server's; such runs are reported but not counted for the largest E or the target.`,
      "End to end: per change sent in the window, from its send to the moment the last other editor of its document had it (Folio: a version at least its own, through its feed); a change never acknowledged, or not arrived by the drain bound, counts as infinite. Acknowledged: the share of the changes sent in the window that were acknowledged.",
      "Memory per open editor: the server's VmRSS with every editor's feed, stream or WebSocket held (once the server has used < 3 % CPU for 1.5 s) minus its VmRSS when idle before any document was created, divided by E; and the same at the end of the measured window (while typing). No GC is forced.",
    );
    const row = (label: string, runs: readonly EditorsRun[], value: (r: EditorsRun) => number, unit: string) => result.rows.push({ label, figure: figure(runs.map(value), unit) });
    // Side by side first: per configuration, the three figures the issue compares.
    for (const setup of plan.setups) {
      const label = setupLabel(setup);
      const byLevel = measured.get(label)!;
      if (byLevel.size === 0) continue;
      const largest = largestWithinBound(byLevel);
      row(`[${label}] largest E with p95 < ${TARGET_P95_MS} ms, ≥ 99.9 % acknowledged, no load- or machine-bound run (of ${[...byLevel.keys()].join(", ")}; 0: none)`, [{ e: largest } as EditorsRun], (r) => r.e, "editors");
      const at2500 = byLevel.get(2500);
      if (at2500) row(`[${label}] E=2500: server CPU per typed change`, at2500, (r) => r.cpuPerPatchUs, "µs");
      // Memory per editor at the largest E measured: the idle server's own growth weighs least there.
      const top = Math.max(...byLevel.keys());
      row(`[${label}] E=${top}: server memory per open editor, editors connected and idle`, byLevel.get(top)!, (r) => (r.rssOpen - r.rssIdle) / r.e, "bytes");
      result.notes.push(`${label}: largest E within the bound ${largest || "none"}; durability: ${DURABILITY[setup.server]}.`);
    }
    for (const setup of plan.setups) {
      const label = setupLabel(setup);
      for (const [e, runs] of measured.get(label)!) {
        const loadBoundRuns = runs.filter((r) => r.loadBound).length;
        const machineBoundRuns = runs.filter((r) => r.machineBound).length;
        const bound =
          (loadBoundRuns > 0 ? ` — load generators were the bound in ${loadBoundRuns} of ${runs.length} run(s)` : "") +
          (machineBoundRuns > 0 ? ` — machine-bound (the server waited for its CPU) in ${machineBoundRuns} of ${runs.length} run(s)` : "");
        const at = `[${label}] E=${e}`;
        row(`${at}: end to end (send → every other editor of the document) p50${bound}`, runs, (r) => r.e2eP50, "ms");
        row(`${at}: end to end p95${bound}`, runs, (r) => r.e2eP95, "ms");
        row(`${at}: end to end p99${bound}`, runs, (r) => r.e2eP99, "ms");
        row(`${at}: changes acknowledged`, runs, (r) => r.acknowledgedShare * 100, "%");
        row(`${at}: server memory per open editor (${setup.server === "folio-poll" ? "polls" : setup.server === "folio-stream" ? "streams" : "WebSockets"} held)`, runs, (r) => (r.rssOpen - r.rssIdle) / e, "bytes");
        row(`${at}: server memory per open editor (at the end of the window, typing)`, runs, (r) => (r.rssEnd - r.rssIdle) / e, "bytes");
        row(`${at}: accepted changes/s (offered ${(e * TYPING_SHARE * 1000) / INTERVAL_MS}/s)`, runs, (r) => r.acceptedPerSecond, "req/s");
        row(`${at}: ${setup.server === "folio-poll" ? "feed answers" : setup.server === "folio-stream" ? "change frames" : "change messages"} received/s`, runs, (r) => r.feedAnswersPerSecond, "msg/s");
        if (setup.cursors) row(`${at}: presence messages received/s (${setup.server === "sharedb" ? "by the other editors" : "by every editor of the document, the sender included"})`, runs, (r) => r.presencePerSecond, "msg/s");
        row(`${at}: change send → acknowledged p95`, runs, (r) => r.patchP95, "ms");
        row(`${at}: ticks skipped (change still unacknowledged)`, runs, (r) => r.skippedTickShare * 100, "%");
        row(`${at}: server CPU`, runs, (r) => r.serverCores, "cores");
        row(`${at}: server CPU per accepted change (all its work charged to changes)`, runs, (r) => r.cpuPerPatchUs, "µs");
        row(`${at}: server main thread waited for its CPU`, runs, (r) => r.serverWaitShare * 100, "%");
        row(`${at}: server RSS, editors open`, runs, (r) => r.rssOpen / MIB, "MiB");
        row(`${at}: load generators CPU (${runs[0]!.processes} process(es))`, runs, (r) => r.loadCores, "cores");
        row(`${at}: load generators event-loop delay p99 (worst process)`, runs, (r) => r.loadEventLoopP99Ms, "ms");
        row(`${at}: documents created and editors opened in`, runs, (r) => r.openMs / 1000, "s");
        const presence = setup.cursors ? `; cursor updates ${runs.map((r) => Object.entries(r.presenceStatuses).map(([s, c]) => `${s}: ${c}`).join(" ")).join(" / ")}` : "";
        result.notes.push(
          `${at} (${runs.length} run(s)): statuses ${runs.map((r) => Object.entries(r.statuses).map(([s, c]) => `${s}: ${c}`).join(" ")).join(" / ")}; re-syncs ${runs.map((r) => r.resyncs).join(", ")}; feed or socket errors ${runs.map((r) => r.feedErrors).join(", ")}${presence}.`,
        );
      }
    }
    // The target (issue 26's, kept): Folio at E = 10,000, by the stream when it ran, else by the long poll.
    const folio = plan.setups.find((s) => s.server === "folio-stream" && !s.cursors) ?? plan.setups.find((s) => s.server === "folio-poll" && !s.cursors);
    const folioLevels = folio ? measured.get(setupLabel(folio))! : new Map<number, EditorsRun[]>();
    const runs = folioLevels.get(TARGET_E) ?? (context.quick ? [...folioLevels.values()].at(-1) : undefined);
    if (folio && runs) {
      const largest = largestWithinBound(folioLevels);
      const e = runs[0]!.e;
      const p95 = median(runs.map((r) => r.e2eP95));
      const acknowledged = median(runs.map((r) => r.acknowledgedShare));
      const bound = runs.filter((r) => r.loadBound).length;
      const machineBound = runs.filter((r) => r.machineBound).length;
      const memory = median(runs.map((r) => (r.rssOpen - r.rssIdle) / e));
      result.targets.push({
        id: "open-editors",
        label: `open editors (${setupLabel(folio)}, service on one core): E = ${e.toLocaleString("en-US")} over ${(e / EDITORS_PER_DOCUMENT).toLocaleString("en-US")} documents, 20 % typing: end-to-end p95 under ${TARGET_P95_MS} ms with ≥ 99.9 % acknowledged`,
        measured: `${bound > 0 ? `load generators were the bound in ${bound} of ${runs.length} run(s); ` : ""}${machineBound > 0 ? `machine-bound (the service waited for its CPU ≥ ${MACHINE_BOUND_WAIT * 100} % of the window) in ${machineBound} of ${runs.length} run(s), not evaluated; ` : ""}end-to-end p95 ${formatNumber(p95)} ms, ${formatNumber(acknowledged * 100, 4)} % acknowledged, ${formatNumber(memory / 1024)} KB of service memory per open editor; largest E within the bound: ${largest || "none"}`,
        value: p95 / TARGET_P95_MS,
        threshold: "< 1.0 (p95 / 250 ms) and ≥ 99.9 % acknowledged",
        met: bound === 0 && machineBound === 0 && p95 < TARGET_P95_MS && acknowledged >= MIN_ACKNOWLEDGED,
      });
    }
    peerTargets(result.targets, plan, measured);
    return finish();
  },
  profile: async (context, profileDir) => {
    const plan = planFor(context);
    const e = context.quick ? 1000 : TARGET_E;
    const setup = plan.setups.find((s) => s.server === "folio-stream" && !s.cursors) ?? { server: "folio-poll" as const, cursors: false };
    await runOnce(context, e, { ...plan, runs: 1 }, 0, setup, profileDir);
    return { command: `one open-editors run (${setupLabel(setup)}) at E = ${e} with the service under --cpu-prof` };
  },
};
