/**
 * Authors on one document, as editor load tests count them: every simulated author sends a one-line
 * patch every `intervalMs` (skipping a tick while its previous patch is still in flight) and keeps
 * one long-poll on the change feed open at all times. Each author owns one line and keeps its own
 * view of the text: from the feed (`ops` from the version of its last feed answer, which it asks
 * from, as the SDK's client does: docs/editing-protocol.md, "Following the feed") and from its own
 * 200s (`opsSinceBase` plus its rebased op).
 *
 * Built to simulate 1,000 authors on one core: two raw keep-alive connections per author
 * (bench/lib/raw-http.ts, no undici streams or abort signals), one ticker for all authors instead of
 * a timer each, and one text per version shared by all authors (a cache keyed by version). Of an
 * answer only the version is read at once; its text is built (the body parsed, the ops applied) when
 * an author first patches on that version, and then once for all authors, so most versions are never
 * built and none twice. A wrong text still shows: the next patch's checksum would not match and the
 * service would refuse it (counted as a 409/422 and a re-sync). The answers of one burst are all
 * read and timestamped before the next long-polls are written.
 *
 * Recorded: every 200 (version, time, sender, send time) and, per author, each time its view
 * advanced (version, time). The parent joins them into the delays.
 *
 * Several runs per process (one per service and document the parent names), each:
 * ← run {document} → ready (feeds open) ← start {startAt} → drained {maxVersion} ← finish {maxVersion} → run-result
 * and ← run {done: true} ends the process.
 */
import { writeFileSync } from "node:fs";
import { fromParent, runChild, sendToParent, sleep, wallNow } from "../lib/child.js";
import { API } from "../lib/http.js";
import { integerAfter, RawConnection } from "../lib/raw-http.js";
import { DocState, afterAccepted, afterFeed, replaceLine, type ChangeFeedBody } from "../lib/replica.js";
import { openEditors, waitUntil, watchWindow, type AuthorsResult, type Config, type RunMessage } from "./authors-shared.js";

export type { AuthorsResult } from "./authors-shared.js";

const CURRENT_VERSION = Buffer.from('"currentVersion":');
const VERSION = Buffer.from('"version":');
/** Versions kept for sharing (a state not yet built keeps its answer's body). */
const CACHE_SIZE = 2048;

interface Author {
  global: number;
  clientId: string;
  state: DocState;
  /** The text of the last feed answer: the feed is asked from its version, as the SDK's client does. */
  feedBase: DocState;
  seq: number;
  inFlight: boolean;
  feed: RawConnection;
  patch: RawConnection;
  view: { versions: number[]; times: number[] };
}

runChild<Config, { runs: number }>(async (config) => {
  const hardEnd = wallNow() + config.timeLimitMs;
  let runs = 0;
  for (;;) {
    const message = await fromParent<RunMessage>("run", Math.max(1000, hardEnd - wallNow()));
    if (message.done) break;
    const result = await runOnce(config, message, hardEnd, runs);
    await sendToParent({ type: "run-result", data: result });
    runs++;
  }
  return { runs };
});

async function runOnce(config: Config, run: RunMessage, hardEnd: number, runIndex: number): Promise<AuthorsResult> {
  const contentPath = `${API}/documents/${run.documentId!}/content`;
  const feedPath = `${API}/documents/${run.documentId!}/changes?wait=60&since=`;
  const initial = DocState.fromText(run.version!, run.text!);
  const cache = new Map<number, DocState>([[initial.version, initial]]);
  const remember = (state: DocState): DocState => {
    cache.set(state.version, state);
    // Insertion order is close to version order; a miss later costs a recomputation, never a wrong text.
    for (const key of cache.keys()) {
      if (cache.size <= CACHE_SIZE) break;
      cache.delete(key);
    }
    return state;
  };
  const acks = { versions: [] as number[], times: [] as number[], senders: [] as number[], sentAt: [] as number[] };
  const patchLatencies: number[] = [];
  const failedSentAt: number[] = [];
  const debugLines: string[] = [];
  const statuses: Record<string, number> = {};
  const count = (key: string | number) => (statuses[key] = (statuses[key] ?? 0) + 1);
  let sent = 0;
  let inFlight = 0;
  let resyncs = 0;
  let skippedTicks = 0;
  let ticks = 0;
  let feedAnswers = 0;
  let feedAnswersInWindow = 0;
  let feedErrors = 0;
  let maxVersion = initial.version;
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let feedsStopped = false;
  let patchesStopped = false;

  const authors: Author[] = Array.from({ length: config.authors }, (_, i) => ({
    global: config.firstAuthor + i,
    clientId: `author-${config.firstAuthor + i}-run-${runIndex}`,
    state: initial,
    feedBase: initial,
    seq: 0,
    inFlight: false,
    feed: RawConnection.forOrigin(run.origin!),
    patch: RawConnection.forOrigin(run.origin!),
    view: { versions: [], times: [] },
  }));
  const adopt = (author: Author, state: DocState, at: number) => {
    if (state.version <= author.state.version) return;
    author.state = state;
    author.view.versions.push(state.version);
    author.view.times.push(at);
    if (state.version > maxVersion) maxVersion = state.version;
  };

  // Answers of one burst are all read and timestamped first; the next long-polls go out after them.
  const repoll: Author[] = [];
  const flushPolls = () => {
    for (const author of repoll.splice(0)) poll(author);
  };
  const pollSoon = (author: Author) => {
    if (repoll.push(author) === 1) setImmediate(flushPolls);
  };
  const poll = (author: Author): void => {
    if (feedsStopped || wallNow() > hardEnd) return;
    const atSince = author.feedBase;
    author.feed.request("GET", feedPath + atSince.version, undefined, (error, status, body) => {
      const at = wallNow();
      if (error || (status !== 200 && status !== 204)) {
        if (feedsStopped) return;
        if (++feedErrors < 5) process.stderr.write(`feed error: ${error ? error.message : `status ${status}`}\n`);
        setTimeout(() => poll(author), 50);
        return;
      }
      feedAnswers++;
      if (at >= windowStart && at <= windowEnd) feedAnswersInWindow++;
      if (status === 200) {
        const version = integerAfter(body, CURRENT_VERSION);
        let state = cache.get(version);
        if (!state) {
          // The text is built when first needed (a patch on it), from this answer's ops on the text at `since`.
          const kept = Buffer.from(body);
          state = remember(new DocState(version, () => afterFeed(atSince, JSON.parse(kept.toString()) as ChangeFeedBody).lines));
        }
        author.feedBase = state;
        adopt(author, state, at);
      }
      pollSoon(author);
    });
  };

  const resync = (author: Author) => {
    resyncs++;
    author.patch.request("GET", `${API}/documents/${run.documentId!}`, undefined, (error, status, body) => {
      author.inFlight = false;
      if (error || status !== 200) return;
      const fresh = JSON.parse(body.toString()) as { version: number; content: string };
      const state = DocState.fromText(fresh.version, fresh.content);
      if (state.version > author.feedBase.version) author.feedBase = state;
      adopt(author, state, wallNow());
    });
  };

  const sendPatch = (author: Author) => {
    author.inFlight = true;
    inFlight++;
    const base = author.state;
    const seq = ++author.seq;
    const op = replaceLine(author.global, `author ${author.global} run ${runIndex} seq ${seq}`);
    const body = `{"baseVersion":${base.version},"checksum":"${base.checksum}","clientId":"${author.clientId}","seq":${seq},"ops":${JSON.stringify(op.wire)}}`;
    const sentAt = wallNow();
    sent++;
    author.patch.request("PATCH", contentPath, body, (error, status, answer) => {
      const at = wallNow();
      inFlight--;
      if (error) {
        author.inFlight = false;
        failedSentAt.push(sentAt);
        if (process.env.BENCH_DEBUG) debugLines.push(`fail ${author.global} sent +${(sentAt - windowStart).toFixed(0)} base ${base.version}`);
        count(patchesStopped ? "aborted" : "error");
        if (!patchesStopped && (statuses.error ?? 0) < 5) process.stderr.write(`patch error: ${error.message}\n`);
        return;
      }
      count(status);
      if (status !== 200) {
        failedSentAt.push(sentAt);
        resync(author);
        return;
      }
      author.inFlight = false;
      const version = integerAfter(answer, VERSION);
      acks.versions.push(version);
      acks.times.push(at);
      acks.senders.push(author.global);
      acks.sentAt.push(sentAt);
      if (at >= windowStart && at <= windowEnd) patchLatencies.push(at - sentAt);
      if (process.env.BENCH_DEBUG) debugLines.push(`ack ${author.global} sent +${(sentAt - windowStart).toFixed(0)} took ${(at - sentAt).toFixed(0)} v${version} base ${base.version}`);
      let state = cache.get(version);
      if (!state) {
        // The text is built when first needed: the foreign ops on the base, then this author's op rebased over them.
        const kept = Buffer.from(answer);
        const opsSinceBase = () => (JSON.parse(kept.toString()) as { opsSinceBase: Parameters<typeof afterAccepted>[3] }).opsSinceBase;
        state = remember(new DocState(version, () => afterAccepted(base, op.normalized, version, opsSinceBase()).lines));
      }
      adopt(author, state, at);
    });
  };

  try {
    // Each author opens its editor first: a GET of the document, which also opens its patch connection.
    await openEditors(authors.map((author) => author.patch), `${API}/documents/${run.documentId!}`, 64);
    for (const author of authors) poll(author);
    await waitUntil(() => authors.every((author) => author.feed.connected), 60_000, "feed connections");
    await sendToParent({ type: "ready" });
    const { startAt } = await fromParent<{ type: "start"; startAt: number }>("start", 120_000);
    windowStart = startAt + config.warmupMs;
    windowEnd = windowStart + config.measureMs;

    const lag = watchWindow(windowStart, windowEnd);
    // One ticker for all authors: author g's k-th tick is due at startAt + (k + g / total) × interval.
    const patchEnd = windowEnd;
    let round = 0;
    let cursor = 0;
    const dueAt = () => startAt + (round + authors[cursor]!.global / config.totalAuthors) * config.intervalMs;
    let ticker: NodeJS.Timeout | undefined;
    const tick = () => {
      const now = wallNow();
      for (let due = dueAt(); due <= now; due = dueAt()) {
        if (due >= patchEnd || now > hardEnd) return;
        const author = authors[cursor]!;
        ticks++;
        if (author.inFlight) skippedTicks++;
        else sendPatch(author);
        if (++cursor === authors.length) {
          cursor = 0;
          round++;
        }
      }
      ticker = setTimeout(tick, Math.max(0, dueAt() - wallNow()));
    };
    ticker = setTimeout(tick, Math.max(0, startAt - wallNow()));
    await sleep(Math.max(0, patchEnd - wallNow()));
    const debug = (what: string) => {
      if (process.env.BENCH_DEBUG) process.stderr.write(`authors: ${what} at +${((wallNow() - patchEnd) / 1000).toFixed(2)} s\n`);
    };
    debug("window over");
    clearTimeout(ticker);
    // Patches still in flight get a bounded time; then they are given up (and counted).
    const settled = await waitUntil(() => inFlight === 0, config.drainMs, "").then(
      () => true,
      () => false,
    );
    if (!settled) {
      patchesStopped = true;
      for (const author of authors) author.patch.stop();
    }
    debug("patches settled");
    const unanswered = statuses.aborted ?? 0;

    await sendToParent({ type: "drained", maxVersion });
    const finish = await fromParent<{ type: "finish"; maxVersion: number }>("finish", config.drainMs + 60_000);
    const drainEnd = Math.min(wallNow() + config.drainMs, hardEnd);
    while (wallNow() < drainEnd && authors.some((author) => author.state.version < finish.maxVersion)) await sleep(20);
    lag.stop();
    debug("feeds caught up");
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
      feedAnswersInWindow,
      feedErrors,
      loadEventLoopP99Ms: lag.p99Ms(),
    };
  } finally {
    feedsStopped = true;
    patchesStopped = true;
    for (const author of authors) {
      author.feed.stop();
      author.patch.stop();
    }
  }
}
