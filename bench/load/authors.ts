/**
 * Authors on one document, as editor load tests count them: every simulated author sends a one-line
 * patch every `intervalMs` (skipping a tick while its previous patch is still in flight) and keeps
 * one long-poll on the change feed open at all times. Each author owns one line and keeps its own
 * view of the text: from the feed (`ops` from the version of its last feed answer, which it asks
 * from, as the SDK's client does: docs/editing-protocol.md, "Following the feed") and from its own
 * 200s (`opsSinceBase` plus its rebased op).
 *
 * Built to simulate 1,000 authors on one core: two raw keep-alive connections per author, one ticker
 * for all, one text per version shared by all authors and built only when patched on
 * (bench/load/editor-pool.ts, shared with the open-editors load generator).
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
import { RawConnection } from "../lib/raw-http.js";
import { DocState } from "../lib/replica.js";
import { watchWindow, type AuthorsResult, type Config, type RunMessage } from "./authors-shared.js";
import { EditorPool, followedDocument, simulatedEditor } from "./editor-pool.js";

export type { AuthorsResult } from "./authors-shared.js";

/** Versions kept for sharing (a state not yet built keeps its answer's body). */
const CACHE_SIZE = 2048;

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
  const doc = followedDocument(run.documentId!, 60, DocState.fromText(run.version!, run.text!), CACHE_SIZE);
  // Author g owns line g; every author types.
  const authors = Array.from({ length: config.authors }, (_, i) => {
    const global = config.firstAuthor + i;
    const author = simulatedEditor(doc, global, `author-${global}-run-${runIndex}`, run.origin!);
    author.patch = RawConnection.forOrigin(run.origin!);
    return author;
  });
  const pool = new EditorPool(authors, hardEnd, (author, seq) => `author ${author.line} run ${runIndex} seq ${seq}`, Boolean(process.env.BENCH_DEBUG));

  try {
    // Each author opens its editor first: a GET of the document, which also opens its patch connection.
    await pool.open(64, (author) => [author.patch!]);
    await pool.follow();
    await sendToParent({ type: "ready" });
    const { startAt } = await fromParent<{ type: "start"; startAt: number }>("start", 120_000);
    pool.windowStart = startAt + config.warmupMs;
    pool.windowEnd = pool.windowStart + config.measureMs;

    const lag = watchWindow(pool.windowStart, pool.windowEnd);
    // Author g's k-th tick is due at startAt + (k + g / total) × interval; every tick is counted.
    const patchEnd = pool.windowEnd;
    const stopTicker = pool.startTicker(authors, {
      startAt,
      intervalMs: config.intervalMs,
      endAt: patchEnd,
      countFrom: Number.NEGATIVE_INFINITY,
      phase: (author) => author.line / config.totalAuthors,
    });
    await sleep(Math.max(0, patchEnd - wallNow()));
    const debug = (what: string) => {
      if (process.env.BENCH_DEBUG) process.stderr.write(`authors: ${what} at +${((wallNow() - patchEnd) / 1000).toFixed(2)} s\n`);
    };
    debug("window over");
    stopTicker();
    await pool.settlePatches(config.drainMs);
    debug("patches settled");
    const unanswered = pool.statuses.aborted ?? 0;

    await sendToParent({ type: "drained", maxVersion: doc.maxVersion });
    const finish = await fromParent<{ type: "finish"; maxVersion: number }>("finish", config.drainMs + 60_000);
    // Every author's view at the newest version of any process.
    doc.maxVersion = Math.max(doc.maxVersion, finish.maxVersion);
    await pool.catchUp(Math.min(wallNow() + config.drainMs, hardEnd));
    lag.stop();
    debug("feeds caught up");
    if (process.env.BENCH_DEBUG) writeFileSync(`${process.env.BENCH_DEBUG}-${config.firstAuthor}-${runIndex}.log`, pool.debugLines.join("\n"));
    return {
      acks: {
        versions: doc.acks.map((ack) => ack.version),
        times: doc.acks.map((ack) => ack.at),
        senders: doc.acks.map((ack) => ack.sender),
        sentAt: doc.acks.map((ack) => ack.sentAt),
      },
      views: authors.map((author) => author.view),
      patchLatencies: pool.patchLatencies,
      sent: pool.sent,
      unanswered,
      failedSentAt: pool.failedSentAt,
      statuses: pool.statuses,
      resyncs: pool.resyncs,
      skippedTicks: pool.skippedTicks,
      ticks: pool.ticks,
      feedAnswers: pool.feedAnswers,
      feedAnswersInWindow: pool.feedAnswersInWindow,
      feedErrors: pool.feedErrors,
      loadEventLoopP99Ms: lag.p99Ms(),
    };
  } finally {
    pool.stop();
  }
}
