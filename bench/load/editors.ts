/**
 * Open editors over many documents (the "open-editors" scenario): this process owns a share of the
 * documents and all their editors, so a patch's way from its sender to every other editor of its
 * document is timed inside one process, on one clock. Each editor opens its document (a GET on its
 * feed connection) and then holds one long poll at all times, as the SDK's client does
 * (GET …/changes?since=<version of its last feed answer>&wait=25); a seeded share of the editors
 * types: one one-line patch per `intervalMs`, skipping a tick while its previous patch is in
 * flight, sent as the client sends it (PATCH …/content with baseVersion, checksum, clientId, seq and
 * ops; src/client/carry-over.ts, `newPatch`) on a connection of its own. Editor k of a document owns
 * line k and replaces it.
 *
 * Raw keep-alive connections and texts shared per (document, version), built only when a typist
 * patches on them (bench/load/editor-pool.ts, shared with bench/load/authors.ts), so that 10,000
 * editors fit on part of one core.
 *
 * IPC: → ready {rss of nothing} ← start {startAt} → result (delays computed here).
 */
import { fromParent, runChild, sendToParent, sleep, wallNow } from "../lib/child.js";
import { API } from "../lib/http.js";
import { rawRequest, RawConnection } from "../lib/raw-http.js";
import { DocState } from "../lib/replica.js";
import { pickTypists, watchWindow } from "./authors-shared.js";
import { EditorPool, followedDocument, simulatedEditor, type FollowedDocument, type SimulatedEditor } from "./editor-pool.js";

export interface EditorsConfig {
  origin: string;
  /**
   * The instances the editors talk to (default: `origin` alone): as behind a round-robin load
   * balancer, editor k of a document uses `origins[k % origins.length]` for its poll and its patches;
   * with `byDocument`, as behind one that routes by document, every editor of the d-th document uses
   * `origins[d % origins.length]`.
   */
  origins?: string[];
  byDocument?: boolean;
  /** This process's index (documents and client ids are named after it). */
  part: number;
  documents: number;
  editorsPerDocument: number;
  /** Share of the editors that type (chosen with a seeded shuffle). */
  typingShare: number;
  seed: number;
  intervalMs: number;
  /** How editors follow their document: a held long poll (the default) or one event stream each. */
  transport?: "poll" | "stream";
  /** Every typist also sends its cursor (PUT …/presence) once per `intervalMs`. */
  cursors?: boolean;
  waitSeconds: number;
  warmupMs: number;
  measureMs: number;
  drainMs: number;
  timeLimitMs: number;
}

export interface EditorsResult {
  editors: number;
  typists: number;
  documents: number;
  /** Per patch sent inside the window: send → the last other editor of its document has it (Infinity: never, or not acknowledged). */
  endToEnd: number[];
  /** Send → 200, patches acknowledged inside the window. */
  patchLatencies: number[];
  sentInWindow: number;
  acknowledgedInWindow: number;
  /** 200s that arrived inside the window (the service's accepted rate). */
  acceptedInWindow: number;
  statuses: Record<string, number>;
  resyncs: number;
  skippedTicks: number;
  ticks: number;
  feedAnswersInWindow: number;
  feedErrors: number;
  /** Stream only: `event: presence` frames received in the window. */
  presenceFramesInWindow: number;
  /** Cursor updates sent (whole run) and their answers by status. */
  presenceSent: number;
  presenceStatuses: Record<string, number>;
  loadEventLoopP99Ms: number;
  openMs: number;
}

/** Versions kept per document for sharing. */
const CACHE_PER_DOCUMENT = 32;


/** The first index whose value is ≥ `target` in an ascending list; the list's length when none is. */
function firstAtLeast(values: number[], target: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

runChild<EditorsConfig, EditorsResult>(async (config) => {
  const hardEnd = wallNow() + config.timeLimitMs;
  const lines = Math.max(20, config.editorsPerDocument);
  const text = Array.from({ length: lines }, (_, i) => `line ${i} of a document with a few editors`).join("\n");
  const opened = wallNow();

  // The documents, created over a few connections.
  const setup = Array.from({ length: 16 }, () => RawConnection.forOrigin(config.origin));
  const docs: FollowedDocument[] = [];
  let nextDoc = 0;
  await Promise.all(
    setup.map(async (connection) => {
      while (nextDoc < config.documents) {
        nextDoc++;
        const created = await rawRequest(connection, "POST", `${API}/documents`, JSON.stringify({ title: `editors ${config.part}`, content: text }));
        if (created.status !== 201) throw new Error(`POST /documents answered ${created.status}: ${created.body.toString().slice(0, 200)}`);
        const body = JSON.parse(created.body.toString()) as { id: string; version: number };
        docs.push(followedDocument(body.id, config.waitSeconds, DocState.fromText(body.version, text), CACHE_PER_DOCUMENT));
      }
    }),
  );
  setup.forEach((connection) => connection.stop());

  // Editor k of a document owns line k.
  const origins = config.origins && config.origins.length > 0 ? config.origins : [config.origin];
  const originOf = (k: number, d: number) => origins[(config.byDocument ? d : k) % origins.length]!;
  const editors: SimulatedEditor[] = [];
  const editorsOf = new Map<FollowedDocument, SimulatedEditor[]>();
  const originOfEditor = new Map<SimulatedEditor, string>();
  for (const [d, doc] of docs.entries()) {
    const ofDoc = Array.from({ length: config.editorsPerDocument }, (_, k) => {
      const editor = simulatedEditor(doc, k, `editor-${config.part}-${editors.length + k}`, originOf(k, d));
      originOfEditor.set(editor, originOf(k, d));
      return editor;
    });
    editorsOf.set(doc, ofDoc);
    editors.push(...ofDoc);
  }
  const typists = pickTypists(editors, config.typingShare, config.seed + config.part);
  for (const typist of typists) {
    typist.patch = RawConnection.forOrigin(originOfEditor.get(typist)!);
    if (config.cursors) typist.presence = RawConnection.forOrigin(originOfEditor.get(typist)!);
  }

  const pool = new EditorPool(editors, hardEnd, (typist, seq) => `line ${typist.line} typed by ${typist.clientId}, keystroke ${seq}`);

  try {
    // Each editor opens its document (which opens its connections), then holds its long poll.
    await pool.open(64, (editor) => (editor.patch ? [editor.feed, editor.patch] : [editor.feed]));
    await pool.follow(config.transport ?? "poll");
    const openMs = wallNow() - opened;
    await sendToParent({ type: "ready", editors: editors.length, typists: typists.length });
    const { startAt } = await fromParent<{ type: "start"; startAt: number }>("start", 300_000);
    const windowStart = startAt + config.warmupMs;
    const windowEnd = windowStart + config.measureMs;
    pool.windowStart = windowStart;
    pool.windowEnd = windowEnd;
    const lag = watchWindow(windowStart, windowEnd);

    // Typist i's k-th tick is due at startAt + (k + i / T) × interval; ticks of the window are counted.
    const tickPlan = { startAt, intervalMs: config.intervalMs, endAt: windowEnd, countFrom: windowStart, phase: (_: SimulatedEditor, i: number) => i / typists.length };
    const stopTicker = pool.startTicker(typists, tickPlan);
    const stopCursors = config.cursors ? pool.startCursorTicker(typists, tickPlan) : () => undefined;
    await sleep(Math.max(0, windowEnd - wallNow()));
    stopTicker();
    stopCursors();
    await pool.settlePatches(config.drainMs);
    // The feeds catch up (bounded): every editor of a document at its last acknowledged version.
    await pool.catchUp(Math.min(wallNow() + config.drainMs, hardEnd));
    lag.stop();

    // End to end, per patch sent in the window: the slowest other editor of its document. A patch
    // without a 200 (still unanswered when the drain ran out: "aborted") never arrives.
    const sentAtOfFailed = pool.failedSentAt.filter((sentAt) => sentAt >= windowStart && sentAt < windowEnd);
    const endToEnd: number[] = sentAtOfFailed.map(() => Number.POSITIVE_INFINITY);
    let sentInWindow = sentAtOfFailed.length;
    let acknowledgedInWindow = 0;
    for (const doc of docs) {
      for (const ack of doc.acks) {
        if (ack.sentAt < windowStart || ack.sentAt >= windowEnd) continue;
        sentInWindow++;
        acknowledgedInWindow++;
        let slowest = ack.sentAt;
        for (const other of editorsOf.get(doc)!) {
          if (other.line === ack.sender) continue;
          const at = firstAtLeast(other.view.versions, ack.version);
          slowest = Math.max(slowest, at < other.view.times.length ? other.view.times[at]! : Number.POSITIVE_INFINITY);
        }
        endToEnd.push(slowest - ack.sentAt);
      }
    }
    return {
      editors: editors.length,
      typists: typists.length,
      documents: docs.length,
      endToEnd,
      patchLatencies: pool.patchLatencies,
      sentInWindow,
      acknowledgedInWindow,
      // The 200s that arrived inside the window: one latency each.
      acceptedInWindow: pool.patchLatencies.length,
      statuses: pool.statuses,
      resyncs: pool.resyncs,
      skippedTicks: pool.skippedTicks,
      ticks: pool.ticks,
      feedAnswersInWindow: pool.feedAnswersInWindow,
      feedErrors: pool.feedErrors,
      presenceFramesInWindow: pool.presenceFramesInWindow,
      presenceSent: pool.presenceSent,
      presenceStatuses: pool.presenceStatuses,
      loadEventLoopP99Ms: lag.p99Ms(),
      openMs,
    };
  } finally {
    pool.stop();
  }
});
