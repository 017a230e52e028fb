/**
 * Authors on one document, as editor load tests count them: every simulated author sends a one-line
 * patch every `intervalMs` (skipping a tick while its previous patch is still in flight) and keeps
 * one long-poll on the change feed open at all times. Each author owns one line and keeps its own
 * view of the text: from the feed (`ops` from its version, or `content`) and from its own 200s
 * (`opsSinceBase` plus its rebased op). Texts of one version are shared between the authors of this
 * process (a cache keyed by version), so each version is hashed once.
 *
 * Recorded: every 200 (version, time, sender) and, per author, each time its view advanced
 * (version, time). The parent joins them into "acknowledged → seen by every other author" delays.
 *
 * Several runs per process (one per service and document the parent names), each:
 * ← run {document} → ready (feeds open) ← start {startAt} → drained {maxVersion} ← finish {maxVersion} → result
 * and ← run {done: true} ends the process.
 */
import { setMaxListeners } from "node:events";
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fromParent, runChild, sendToParent, sleep, wallNow } from "../lib/child.js";
import { API, abortable, createPool, requestJson } from "../lib/http.js";
import { DocState, afterAccepted, afterFeed, replaceLine, type ChangeFeedBody } from "../lib/replica.js";

interface Config {
  /** Global index of this process's first author; author g owns line g. */
  firstAuthor: number;
  authors: number;
  totalAuthors: number;
  intervalMs: number;
  warmupMs: number;
  measureMs: number;
  /** Bound on waiting for in-flight patches after the last tick, and for the feeds to catch up. */
  drainMs: number;
  timeLimitMs: number;
}

interface RunMessage {
  [key: string]: unknown;
  type: "run";
  done?: boolean;
  /** A fresh service for every run. */
  origin?: string;
  documentId?: string;
  text?: string;
  version?: number;
}

export interface AuthorsResult {
  /** Every 200: the version, when it arrived, who sent it and when it was sent. */
  acks: { versions: number[]; times: number[]; senders: number[]; sentAt: number[] };
  /** Per author of this process (index = global author − firstAuthor): when its view reached which version. */
  views: { versions: number[]; times: number[] }[];
  /** Send → 200 of each patch acknowledged inside the window. */
  patchLatencies: number[];
  sent: number;
  /** Patches still unanswered when the drain bound ran out (aborted). */
  unanswered: number;
  /** When each patch without a 200 (aborted, failed, 409/422) was sent. */
  failedSentAt: number[];
  statuses: Record<string, number>;
  resyncs: number;
  skippedTicks: number;
  ticks: number;
  feedAnswers: number;
  feedEmpty: number;
  feedErrors: number;
  loadEventLoopP99Ms: number;
  loadCpuMs: number;
}

interface PatchAnswer {
  version: number;
  opsSinceBase: { op: "replace" | "insert" | "delete"; index: number; count?: number; lines?: string[] }[];
}

interface Author {
  global: number;
  state: DocState;
  seq: number;
  inFlight: boolean;
  view: { versions: number[]; times: number[] };
}

runChild<Config, { runs: number }>(async (config) => {
  const hardEnd = wallNow() + config.timeLimitMs;
  let runs = 0;
  for (;;) {
    const message = await fromParent<RunMessage>("run", Math.max(1000, hardEnd - wallNow()));
    if (message.done) break;
    // Fresh connections for every run, as fresh editors would open them.
    const feedPool = createPool(message.origin!, config.authors);
    const patchPool = createPool(message.origin!, config.authors);
    try {
      const result = await runOnce(config, feedPool, patchPool, message, hardEnd, runs);
      await sendToParent({ type: "run-result", data: result });
    } finally {
      await Promise.all([feedPool.destroy(), patchPool.destroy()]);
    }
    runs++;
  }
  return { runs };
});

async function runOnce(
  config: Config,
  feedPool: ReturnType<typeof createPool>,
  patchPool: ReturnType<typeof createPool>,
  run: RunMessage,
  hardEnd: number,
  runIndex: number,
): Promise<AuthorsResult> {
  const documentId = run.documentId!;
  const stopFeeds = new AbortController();
  const stopPatches = new AbortController();
  setMaxListeners(0, stopFeeds.signal, stopPatches.signal);
  const initial = DocState.fromText(run.version!, run.text!);
  const cache = new Map<number, DocState>([[initial.version, initial]]);
  const shared = (version: number, compute: () => DocState): DocState => {
    let state = cache.get(version);
    if (!state) {
      state = compute();
      cache.set(version, state);
      // Insertion order is close to version order; a miss later costs a recomputation, never a wrong text.
      for (const key of cache.keys()) {
        if (cache.size <= 4096) break;
        cache.delete(key);
      }
    }
    return state;
  };
  const acks = { versions: [] as number[], times: [] as number[], senders: [] as number[], sentAt: [] as number[] };
  const patchLatencies: number[] = [];
  const failedSentAt: number[] = [];
  const debugLines: string[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  let resyncs = 0;
  let skippedTicks = 0;
  let ticks = 0;
  let feedAnswers = 0;
  let feedEmpty = 0;
  let feedErrors = 0;
  let maxVersion = initial.version;
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;

  const authors: Author[] = Array.from({ length: config.authors }, (_, i) => ({
    global: config.firstAuthor + i,
    state: initial,
    seq: 0,
    inFlight: false,
    view: { versions: [], times: [] },
  }));
  const adopt = (author: Author, state: DocState, at: number) => {
    if (state.version <= author.state.version) return;
    author.state = state;
    author.view.versions.push(state.version);
    author.view.times.push(at);
    if (state.version > maxVersion) maxVersion = state.version;
  };

  const feedLoop = async (author: Author) => {
    while (!stopFeeds.signal.aborted && wallNow() < hardEnd) {
      const atSince = author.state;
      try {
        const answer = await abortable(
          requestJson<ChangeFeedBody>(feedPool, "GET", `${API}/documents/${documentId}/changes?since=${atSince.version}&wait=60`, undefined, stopFeeds.signal),
          stopFeeds.signal,
        );
        const at = wallNow();
        if (answer.status === 200 && answer.body) {
          feedAnswers++;
          const body = answer.body;
          adopt(author, shared(body.currentVersion, () => afterFeed(atSince, body)), at);
        } else if (answer.status === 204) {
          feedEmpty++;
        } else {
          feedErrors++;
          await sleep(50);
        }
      } catch (error) {
        if (stopFeeds.signal.aborted) return;
        feedErrors++;
        if (feedErrors < 5) process.stderr.write(`feed error: ${String(error)}\n`);
        await sleep(50);
      }
    }
  };

  const sendPatch = async (author: Author) => {
    author.inFlight = true;
    const base = author.state;
    const seq = ++author.seq;
    const op = replaceLine(author.global, `author ${author.global} run ${runIndex} seq ${seq}`);
    const sentAt = wallNow();
    try {
      sent++;
      const answer = await abortable(
        requestJson<PatchAnswer>(
          patchPool,
          "PATCH",
          `${API}/documents/${documentId}/content`,
          { baseVersion: base.version, checksum: base.checksum, clientId: `author-${author.global}-run-${runIndex}`, seq, ops: op.wire },
          stopPatches.signal,
        ),
        stopPatches.signal,
      );
      const at = wallNow();
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (answer.status === 200 && answer.body) {
        const { version, opsSinceBase } = answer.body;
        acks.versions.push(version);
        acks.times.push(at);
        acks.senders.push(author.global);
        acks.sentAt.push(sentAt);
        if (at >= windowStart && at <= windowEnd) patchLatencies.push(at - sentAt);
        if (process.env.BENCH_DEBUG) debugLines.push(`ack ${author.global} sent +${(sentAt - windowStart).toFixed(0)} took ${(at - sentAt).toFixed(0)} v${version} base ${base.version}`);
        adopt(author, shared(version, () => afterAccepted(base, op.normalized, version, opsSinceBase)), at);
      } else {
        failedSentAt.push(sentAt);
        resyncs++;
        const fresh = await requestJson<{ version: number; content: string }>(patchPool, "GET", `${API}/documents/${documentId}`, undefined, stopPatches.signal);
        if (fresh.status === 200 && fresh.body) adopt(author, DocState.fromText(fresh.body.version, fresh.body.content), wallNow());
      }
    } catch (error) {
      if (failedSentAt[failedSentAt.length - 1] !== sentAt) failedSentAt.push(sentAt);
      if (process.env.BENCH_DEBUG) debugLines.push(`fail ${author.global} sent +${(sentAt - windowStart).toFixed(0)} base ${base.version}`);
      const key = stopPatches.signal.aborted ? "aborted" : "error";
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (key === "error" && (statuses.error ?? 0) < 5) process.stderr.write(`patch error: ${String(error)}\n`);
    } finally {
      author.inFlight = false;
    }
  };

  // Each author opens its editor first: a GET of the document, which also opens its patch connection.
  let opened = 0;
  await Promise.all(
    Array.from({ length: Math.min(64, authors.length) }, async () => {
      while (opened < authors.length) {
        opened++;
        const loaded = await requestJson(patchPool, "GET", `${API}/documents/${documentId}`);
        if (loaded.status !== 200) throw new Error(`GET of the document answered ${loaded.status}`);
      }
    }),
  );
  const feeds = authors.map((author) => feedLoop(author));
  for (let waited = 0; feedPool.stats.connected < config.authors; waited += 20) {
    if (waited > 60_000) throw new Error(`only ${feedPool.stats.connected} of ${config.authors} feed connections after 60 s`);
    await sleep(20);
  }
  await sendToParent({ type: "ready" });
  const { startAt } = await fromParent<{ type: "start"; startAt: number }>("start", 120_000);
  windowStart = startAt + config.warmupMs;
  windowEnd = windowStart + config.measureMs;

  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpuBefore = process.cpuUsage();
  const patchEnd = windowEnd;
  const patching: Promise<void>[] = [];
  const timers = authors.map((author) => {
    let next = startAt + (author.global / config.totalAuthors) * config.intervalMs;
    let timer: NodeJS.Timeout;
    const schedule = () => {
      timer = setTimeout(() => {
        if (next >= patchEnd || wallNow() > hardEnd) return;
        ticks++;
        if (author.inFlight) skippedTicks++;
        else patching.push(sendPatch(author));
        next += config.intervalMs;
        schedule();
      }, Math.max(0, next - wallNow()));
    };
    schedule();
    return () => clearTimeout(timer);
  });
  await sleep(Math.max(0, patchEnd - wallNow()));
  const debug = (what: string) => {
    if (process.env.BENCH_DEBUG) process.stderr.write(`authors ${config.firstAuthor}: ${what} at +${((wallNow() - patchEnd) / 1000).toFixed(2)} s\n`);
  };
  debug("window over");
  timers.forEach((clear) => clear());
  // Patches still in flight get a bounded time; then they are given up (and counted).
  const settled = Promise.all(patching);
  if ((await Promise.race([settled.then(() => "done" as const), sleep(config.drainMs).then(() => "late" as const)])) === "late") stopPatches.abort();
  debug("drain bound");
  await settled;
  debug("patches settled");
  const unanswered = statuses.aborted ?? 0;

  await sendToParent({ type: "drained", maxVersion });
  const finish = await fromParent<{ type: "finish"; maxVersion: number }>("finish", config.drainMs + 60_000);
  const drainEnd = Math.min(wallNow() + config.drainMs, hardEnd);
  while (wallNow() < drainEnd && authors.some((author) => author.state.version < finish.maxVersion)) await sleep(20);
  const cpu = process.cpuUsage(cpuBefore);
  delay.disable();
  debug("feeds caught up");
  stopFeeds.abort();
  await Promise.allSettled(feeds);
  debug("feeds stopped");
  if (process.env.BENCH_DEBUG) writeFileSync(`${process.env.BENCH_DEBUG}-${config.firstAuthor}-${runIndex}.log`, debugLines.join("\n"));

  return {
    acks,
    views: authors.map((author) => author.view),
    patchLatencies,
    sent,
    unanswered,
    failedSentAt,
    statuses,
    resyncs,
    skippedTicks,
    ticks,
    feedAnswers,
    feedEmpty,
    feedErrors,
    loadEventLoopP99Ms: delay.percentile(99) / 1e6,
    loadCpuMs: (cpu.user + cpu.system) / 1000,
  };
}
