import type { FanoutResult } from "../load/fanout.js";
import { beginResult, checkDeadline, type BenchContext, type Scenario } from "../lib/context.js";
import { API, createPool, requestJson } from "../lib/http.js";
import { readCpuMs, readRss, waitForQuiet } from "../lib/proc.js";
import { forkLoad, type ServerHandle } from "../lib/processes.js";
import { startBaseline, startService } from "../lib/service.js";
import { figure, median } from "../lib/stats.js";

const KB = 1024;
const MAX_BYTES_PER_WAITER = 12 * KB;
const MAX_TIME_RATIO = 1.5;

interface FanoutRun extends FanoutResult {
  /** Server CPU time from just before the trigger to the last answer, per answer after the trigger, in µs. */
  cpuPerAnswerUs: number;
  rssBefore: number;
  rssAfter: number;
  bytesPerWaiter: number;
  settledMs: number;
  settled: boolean;
}

const TEXT = Array.from({ length: 50 }, (_, i) => `line ${i} of the watched document`).join("\n");

async function prepareService(origin: string): Promise<{ id: string; version: number }> {
  const pool = createPool(origin, 4);
  try {
    const created = await requestJson<{ id: string; version: number }>(pool, "POST", `${API}/documents`, { title: "fan-out", content: TEXT });
    if (created.status !== 201 || !created.body) throw new Error(`POST /documents answered ${created.status}`);
    // Warm the feed's code paths (an immediate answer, a short wait that times out) before the first RSS reading.
    for (let i = 0; i < 200; i++) await requestJson(pool, "GET", `${API}/documents/${created.body.id}/changes?since=0&wait=0`);
    await requestJson(pool, "GET", `${API}/documents/${created.body.id}/changes?since=1&wait=1`);
    return created.body;
  } finally {
    await pool.close();
  }
}

async function prepareBare(origin: string): Promise<void> {
  const pool = createPool(origin, 4);
  try {
    for (let i = 0; i < 200; i++) await requestJson(pool, "GET", "/json");
    const held = requestJson(pool, "GET", "/hold");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await requestJson(pool, "POST", "/release");
    await held;
  } finally {
    await pool.close();
  }
}

async function runOnce(context: BenchContext, server: ServerHandle, mode: "service" | "bare", waiters: number, document?: { id: string; version: number }): Promise<FanoutRun> {
  await waitForQuiet(server.pid, { quietMs: 1000, maxMs: 5000 });
  const rssBefore = readRss(server.pid);
  const timeLimitMs = 90_000;
  const load = forkLoad(
    "fanout",
    { origin: server.origin, mode, waiters, batch: 500, timeLimitMs, ...(document ? { documentId: document.id, version: document.version, text: TEXT } : {}) },
    { heapMb: 2048 },
  );
  try {
    const registered = await load.next<{ type: "registered"; early: number }>("registered", timeLimitMs);
    if (registered.early > 0) context.log(`${mode}: ${registered.early} waiters were answered before the trigger`);
    // Memory is read once the server has stopped working on the new requests.
    const quiet = await waitForQuiet(server.pid, { quietMs: 1500, maxMs: 20_000 });
    const rssAfter = readRss(server.pid);
    // The server is idle here (quiet above): its CPU time from now to the last answer is the wake-up's.
    const cpuBefore = readCpuMs(server.pid);
    load.send({ type: "fire" });
    await load.next("answered", timeLimitMs);
    const cpuMs = readCpuMs(server.pid) - cpuBefore;
    load.send({ type: "close" });
    const { data } = await load.next<{ type: "result"; data: FanoutResult }>("result", timeLimitMs);
    return {
      ...data,
      cpuPerAnswerUs: (cpuMs * 1000) / data.afterFire,
      rssBefore,
      rssAfter,
      bytesPerWaiter: (rssAfter - rssBefore) / waiters,
      settledMs: quiet.waitedMs,
      settled: quiet.quiet,
    };
  } finally {
    load.kill();
    await load.exited();
  }
}

export const feedFanout: Scenario = {
  id: "feed-fanout",
  title: "Feed fan-out: concurrent waiters on one document woken by one patch",
  budgetS: { full: 150, quick: 40 },
  run: async (context) => {
    const { result, finish } = beginResult(feedFanout.id, feedFanout.title, context.backend);
    const waiters = context.quick ? 2000 : 10_000;
    const runs = context.quick ? 1 : 3;
    const service: FanoutRun[] = [];
    const bare: FanoutRun[] = [];
    for (let run = 0; run < runs; run++) {
      checkDeadline(context, `feed fan-out run ${run + 1}`);
      const baseline = await startBaseline("bare-fastify", context.tmp);
      try {
        await prepareBare(baseline.origin);
        bare.push(await runOnce(context, baseline, "bare", waiters));
      } finally {
        await baseline.stop();
      }
      checkDeadline(context, `feed fan-out run ${run + 1}`);
      const server = await startService({ build: context.build, backend: context.backend, tmp: context.tmp, ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}) });
      try {
        const document = await prepareService(server.origin);
        service.push(await runOnce(context, server, "service", waiters, document));
      } finally {
        await server.close();
      }
      const s = service[service.length - 1]!;
      const b = bare[bare.length - 1]!;
      context.log(
        `run ${run + 1}: service ${(s.bytesPerWaiter / KB).toFixed(1)} KB/waiter, last answer ${s.lastMs.toFixed(0)} ms; bare ${(b.bytesPerWaiter / KB).toFixed(1)} KB/request, last ${b.lastMs.toFixed(0)} ms`,
      );
    }
    result.method.push(
      `${waiters.toLocaleString("en-US")} connections from one load-generator process, opened in batches of 500, each holding one request: GET …/changes?since=<head>&wait=120 on the service, GET /hold on a bare Fastify route that keeps the reply in a Set. ${runs} run(s), each on a fresh server process, bare and service interleaved.`,
      "Memory: the server's VmRSS (/proc/<pid>/status) after warm-up and 1 s without CPU use, and again once the held requests are in and the server has used < 3 % CPU for 1.5 s; the difference divided by the number of requests (1 KB = 1,024 bytes). No GC is forced, so garbage not yet collected counts.",
      "Time: from sending the waking request (one one-line PATCH; POST /release for the bare route) to the last held request's answer, in the load generator.",
      "Server CPU per answer: the server's CPU time (run time of all its threads, /proc/<pid>/task/*/schedstat) from just before the waking request (the server idle) to the load generator's report that every held request was answered (the connections stay open until it is read), divided by the answers after the trigger; the waking request's own cost is included.",
    );
    const add = (label: string, list: FanoutRun[]) => {
      result.rows.push({ label: `${label}: server memory per held request`, figure: figure(list.map((r) => r.bytesPerWaiter), "bytes") });
      result.rows.push({ label: `${label}: RSS with the requests held`, figure: figure(list.map((r) => r.rssAfter / 1024 / 1024), "MiB") });
      result.rows.push({ label: `${label}: waking request answered after`, figure: figure(list.map((r) => r.triggerMs), "ms") });
      result.rows.push({ label: `${label}: first held request answered after`, figure: figure(list.map((r) => r.firstMs), "ms") });
      result.rows.push({ label: `${label}: median held request answered after`, figure: figure(list.map((r) => r.p50Ms), "ms") });
      result.rows.push({ label: `${label}: last held request answered after`, figure: figure(list.map((r) => r.lastMs), "ms") });
      result.rows.push({ label: `${label}: connections opened in`, figure: figure(list.map((r) => r.registerMs), "ms") });
      result.rows.push({ label: `${label}: server CPU per ${label === "service" ? "feed answer" : "held request answered"}`, figure: figure(list.map((r) => r.cpuPerAnswerUs), "µs") });
    };
    add("service", service);
    add("bare Fastify", bare);
    for (const [label, list] of [["service", service], ["bare", bare]] as const) {
      result.notes.push(
        `${label}: RSS before ${list.map((r) => (r.rssBefore / 1024 / 1024).toFixed(0)).join(", ")} MiB; statuses ${list.map((r) => JSON.stringify(r.statuses)).join(" ")}; answered ${list.map((r) => r.answered).join(", ")}; early ${list.map((r) => r.early).join(", ")}; settled ${list.map((r) => `${r.settled ? "yes" : "no"} after ${(r.settledMs / 1000).toFixed(1)} s`).join(", ")}.`,
      );
    }
    const bytes = median(service.map((r) => r.bytesPerWaiter));
    const last = median(service.map((r) => r.lastMs));
    const bareLast = median(bare.map((r) => r.lastMs));
    result.targets.push({
      id: "feed-memory",
      label: `feed: server memory per waiting request (${waiters.toLocaleString("en-US")} waiters)`,
      measured: `${(bytes / KB).toFixed(1)} KB (bare Fastify: ${(median(bare.map((r) => r.bytesPerWaiter)) / KB).toFixed(1)} KB)`,
      value: bytes / MAX_BYTES_PER_WAITER,
      threshold: "≤ 1.0 (of 12 KB)",
      met: bytes <= MAX_BYTES_PER_WAITER,
    });
    result.targets.push({
      id: "feed-time",
      label: `feed: all ${waiters.toLocaleString("en-US")} waiters answered vs a bare Fastify route answering as many held requests`,
      measured: `${last.toFixed(0)} / ${bareLast.toFixed(0)} ms`,
      value: last / bareLast,
      threshold: `≤ ${MAX_TIME_RATIO}`,
      met: last / bareLast <= MAX_TIME_RATIO,
    });
    return finish();
  },
  profile: async (context, profileDir) => {
    const waiters = context.quick ? 2000 : 10_000;
    const server = await startService({ build: context.build, backend: context.backend, tmp: context.tmp, profileDir, ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}) });
    try {
      const document = await prepareService(server.origin);
      await runOnce(context, server, "service", waiters, document);
    } finally {
      await server.close();
    }
    return { command: `one fan-out run with ${waiters} waiters and the service under --cpu-prof` };
  },
};
