/**
 * Closed-loop clients: each keeps exactly one request in flight until the phase's time is up.
 * Phases run one after another in this process (so that a service and its baselines take turns
 * under the same machine noise):
 *  - `patch`: one-line content patches on the service, spread over `documents` documents (created
 *    at the first phase of that key). Each client owns one line of every document, keeps its own
 *    copy of each document it touched, and after a 200 applies the foreign `opsSinceBase` and its
 *    own rebased op, as an editor does. A 409/422 (which non-overlapping patches should never get)
 *    is counted and followed by a GET that re-syncs the copy.
 *  - `json`: GET /json on the bare Fastify baseline.
 *  - `write`: POST /write on the bare SQLite baseline (one durable transaction per request).
 *  - `echo`: POST /echo on the bare Fastify baseline: a patch's body in, a hot-document answer out.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Pool } from "undici";
import { runChild, wallNow } from "../lib/child.js";
import { API, createPool, requestJson } from "../lib/http.js";
import { DocState, afterAccepted, replaceLine } from "../lib/replica.js";
import { percentile } from "../lib/stats.js";

export interface Phase {
  /** Phases with the same key share their documents and the clients' copies of them. */
  key: string;
  origin: string;
  mode: "patch" | "json" | "write" | "echo";
  documents?: number;
}

interface Config {
  phases: Phase[];
  clients: number;
  warmupMs: number;
  measureMs: number;
  /** Hard bound for the whole process, set-up included. */
  timeLimitMs: number;
}

interface PatchAnswer {
  version: number;
  opsSinceBase: { op: "replace" | "insert" | "delete"; index: number; count?: number; lines?: string[] }[];
}

export interface ClosedLoopResult {
  key: string;
  windowMs: number;
  completed: number;
  ratePerSecond: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  statuses: Record<string, number>;
  /** Extra GETs to re-sync a client after a 409/422 (patch mode). */
  resyncs: number;
  /** CPU time of this process inside the window. */
  loadCpuMs: number;
  loadEventLoopP99Ms: number;
  windowStart: number;
  windowEnd: number;
}

interface Workspace {
  documentIds: string[];
  initial: DocState;
  /** Per client: its copy of each document it touched. */
  copies: Map<number, DocState>[];
  seq: number[];
}

runChild<Config, ClosedLoopResult[]>(async (config) => {
  const hardEnd = wallNow() + config.timeLimitMs;
  const pools = new Map<string, Pool>();
  const poolFor = (origin: string) => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = createPool(origin, config.clients + 2);
      pools.set(origin, pool);
    }
    return pool;
  };
  const lineCount = Math.max(config.clients, 50);
  const initialText = Array.from({ length: lineCount }, (_, i) => `line ${i} of a document that many people edit at once`).join("\n");
  const workspaces = new Map<string, Workspace>();

  const prepare = async (phase: Phase): Promise<Workspace> => {
    let workspace = workspaces.get(phase.key);
    if (workspace) return workspace;
    const pool = poolFor(phase.origin);
    const documentIds: string[] = [];
    const count = phase.mode === "patch" ? (phase.documents ?? 1) : 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(32, count) }, async () => {
        while (next < count) {
          next++;
          if (wallNow() > hardEnd) throw new Error("time limit reached while creating documents");
          const created = await requestJson<{ id: string; version: number }>(pool, "POST", `${API}/documents`, { title: "bench", content: initialText });
          if (created.status !== 201 || !created.body) throw new Error(`POST /documents answered ${created.status}`);
          documentIds.push(created.body.id);
        }
      }),
    );
    workspace = {
      documentIds,
      initial: DocState.fromText(1, initialText),
      copies: Array.from({ length: config.clients }, () => new Map<number, DocState>()),
      seq: Array.from({ length: config.clients }, () => 0),
    };
    workspaces.set(phase.key, workspace);
    return workspace;
  };

  const runPhase = async (phase: Phase): Promise<ClosedLoopResult> => {
    const workspace = await prepare(phase);
    const pool = poolFor(phase.origin);
    const windowStart = wallNow() + config.warmupMs;
    const windowEnd = windowStart + config.measureMs;
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let resyncs = 0;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    // CPU and event-loop delay of this process inside the measurement window only.
    let cpuBefore = process.cpuUsage();
    let cpuInWindow: NodeJS.CpuUsage | undefined;
    const startTimer = setTimeout(() => {
      cpuBefore = process.cpuUsage();
      delay.enable();
    }, Math.max(0, windowStart - wallNow()));
    const endTimer = setTimeout(() => {
      cpuInWindow = process.cpuUsage(cpuBefore);
      delay.disable();
    }, Math.max(0, windowEnd - wallNow()));

    const client = async (index: number) => {
      const known = workspace.copies[index]!;
      const clientId = `bench-${process.pid}-${phase.key}-${index}`;
      while (wallNow() < windowEnd && wallNow() < hardEnd) {
        const seq = ++workspace.seq[index]!;
        const t0 = wallNow();
        let status: number;
        if (phase.mode === "json") {
          status = (await requestJson(pool, "GET", "/json")).status;
        } else if (phase.mode === "write" || phase.mode === "echo") {
          const op = replaceLine(index, `client ${index} seq ${seq}`);
          const path = phase.mode === "write" ? "/write" : "/echo";
          status = (await requestJson(pool, "POST", path, { baseVersion: seq, checksum: `sha256:${"0".repeat(64)}`, clientId, seq, ops: op.wire })).status;
        } else {
          const ids = workspace.documentIds;
          const doc = ids.length === 1 ? 0 : Math.floor(Math.random() * ids.length);
          const id = ids[doc]!;
          const base = known.get(doc) ?? workspace.initial;
          const op = replaceLine(index, `client ${index} seq ${seq}`);
          const answer = await requestJson<PatchAnswer>(pool, "PATCH", `${API}/documents/${id}/content`, {
            baseVersion: base.version,
            checksum: base.checksum,
            clientId,
            seq,
            ops: op.wire,
          });
          status = answer.status;
          if (status === 200 && answer.body) {
            const next = afterAccepted(base, op.normalized, answer.body.version, answer.body.opsSinceBase);
            if (next.version > (known.get(doc)?.version ?? 0)) known.set(doc, next);
          } else {
            resyncs++;
            const fresh = await requestJson<{ version: number; content: string }>(pool, "GET", `${API}/documents/${id}`);
            if (fresh.status === 200 && fresh.body) known.set(doc, DocState.fromText(fresh.body.version, fresh.body.content));
          }
        }
        const t1 = wallNow();
        statuses[status] = (statuses[status] ?? 0) + 1;
        // Only accepted requests count: the rate is of 200s, the latencies are of 200s.
        if (status === 200 && t1 >= windowStart && t1 <= windowEnd) latencies.push(t1 - t0);
      }
    };
    await Promise.all(Array.from({ length: config.clients }, (_, index) => client(index)));
    clearTimeout(startTimer);
    clearTimeout(endTimer);
    const cpu = cpuInWindow ?? process.cpuUsage(cpuBefore);
    delay.disable();
    const windowMs = Math.min(windowEnd, wallNow()) - windowStart;
    return {
      key: phase.key,
      windowMs,
      completed: latencies.length,
      ratePerSecond: (latencies.length / windowMs) * 1000,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      meanMs: latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length),
      statuses,
      resyncs,
      loadCpuMs: (cpu.user + cpu.system) / 1000,
      loadEventLoopP99Ms: delay.percentile(99) / 1e6,
      windowStart,
      windowEnd,
    };
  };

  const results: ClosedLoopResult[] = [];
  // Documents are created up front, so that no phase's warm-up includes another's set-up.
  for (const phase of config.phases) await prepare(phase);
  for (const phase of config.phases) results.push(await runPhase(phase));
  await Promise.all([...pools.values()].map((pool) => pool.close()));
  return results;
});
