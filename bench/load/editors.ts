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
 * patches on them, as in bench/load/authors.ts, so that 10,000 editors fit on part of one core.
 *
 * IPC: → ready {rss of nothing} ← start {startAt} → result (delays computed here).
 */
import { fromParent, runChild, sendToParent, sleep, wallNow } from "../lib/child.js";
import { API } from "../lib/http.js";
import { integerAfter, rawRequest, RawConnection } from "../lib/raw-http.js";
import { DocState, afterAccepted, afterFeed, replaceLine, type ChangeFeedBody } from "../lib/replica.js";
import { waitUntil, watchWindow } from "./authors-shared.js";

export interface EditorsConfig {
  origin: string;
  /** This process's index (documents and client ids are named after it). */
  part: number;
  documents: number;
  editorsPerDocument: number;
  /** Share of the editors that type (chosen with a seeded shuffle). */
  typingShare: number;
  seed: number;
  intervalMs: number;
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
  loadEventLoopP99Ms: number;
  openMs: number;
}

const CURRENT_VERSION = Buffer.from('"currentVersion":');
const VERSION = Buffer.from('"version":');
/** Versions kept per document for sharing. */
const CACHE_PER_DOCUMENT = 32;

interface Doc {
  id: string;
  contentPath: string;
  feedPath: string;
  cache: Map<number, DocState>;
  editors: Editor[];
  /** Every 200 of a patch to this document. */
  acks: { version: number; sender: number; sentAt: number }[];
  maxVersion: number;
}

interface Editor {
  doc: Doc;
  /** Index within its document (the line it owns). */
  k: number;
  clientId: string;
  state: DocState;
  feedBase: DocState;
  feed: RawConnection;
  patch: RawConnection | undefined;
  seq: number;
  inFlight: boolean;
  view: { versions: number[]; times: number[] };
}

/** mulberry32: a small seeded generator, so a run's typists are the same every time. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
  const docs: Doc[] = [];
  let nextDoc = 0;
  await Promise.all(
    setup.map(async (connection) => {
      while (nextDoc < config.documents) {
        nextDoc++;
        const created = await rawRequest(connection, "POST", `${API}/documents`, JSON.stringify({ title: `editors ${config.part}`, content: text }));
        if (created.status !== 201) throw new Error(`POST /documents answered ${created.status}: ${created.body.toString().slice(0, 200)}`);
        const body = JSON.parse(created.body.toString()) as { id: string; version: number };
        docs.push({
          id: body.id,
          contentPath: `${API}/documents/${body.id}/content`,
          feedPath: `${API}/documents/${body.id}/changes?wait=${config.waitSeconds}&since=`,
          cache: new Map([[body.version, DocState.fromText(body.version, text)]]),
          editors: [],
          acks: [],
          maxVersion: body.version,
        });
      }
    }),
  );
  setup.forEach((connection) => connection.stop());

  const editors: Editor[] = [];
  for (const doc of docs) {
    const initial = doc.cache.values().next().value as DocState;
    for (let k = 0; k < config.editorsPerDocument; k++) {
      const editor: Editor = {
        doc,
        k,
        clientId: `editor-${config.part}-${editors.length}`,
        state: initial,
        feedBase: initial,
        feed: RawConnection.forOrigin(config.origin),
        patch: undefined,
        seq: 0,
        inFlight: false,
        view: { versions: [], times: [] },
      };
      doc.editors.push(editor);
      editors.push(editor);
    }
  }
  // A seeded shuffle picks the typists (some documents get none, some several, as in life).
  const random = seeded(config.seed + config.part);
  const order = editors.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const typists = order.slice(0, Math.round(editors.length * config.typingShare)).map((i) => editors[i]!);
  for (const typist of typists) typist.patch = RawConnection.forOrigin(config.origin);

  const remember = (doc: Doc, state: DocState): DocState => {
    doc.cache.set(state.version, state);
    for (const key of doc.cache.keys()) {
      if (doc.cache.size <= CACHE_PER_DOCUMENT) break;
      doc.cache.delete(key);
    }
    return state;
  };
  const adopt = (editor: Editor, state: DocState, at: number) => {
    if (state.version <= editor.state.version) return;
    editor.state = state;
    editor.view.versions.push(state.version);
    editor.view.times.push(at);
  };

  const statuses: Record<string, number> = {};
  const count = (key: string | number) => (statuses[key] = (statuses[key] ?? 0) + 1);
  const patchLatencies: number[] = [];
  const sentAtOfFailed: number[] = [];
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let feedsStopped = false;
  let patchesStopped = false;
  let feedAnswersInWindow = 0;
  let feedErrors = 0;
  let acceptedInWindow = 0;
  let inFlight = 0;
  let resyncs = 0;
  let ticks = 0;
  let skippedTicks = 0;

  // Answers of one burst are all read and timestamped first; the next long polls go out after them.
  const repoll: Editor[] = [];
  const flushPolls = () => {
    for (const editor of repoll.splice(0)) poll(editor);
  };
  const pollSoon = (editor: Editor) => {
    if (repoll.push(editor) === 1) setImmediate(flushPolls);
  };
  const poll = (editor: Editor): void => {
    if (feedsStopped || wallNow() > hardEnd) return;
    const atSince = editor.feedBase;
    const { doc } = editor;
    editor.feed.request("GET", doc.feedPath + atSince.version, undefined, (error, status, body) => {
      const at = wallNow();
      if (error || (status !== 200 && status !== 204)) {
        if (feedsStopped) return;
        if (++feedErrors < 5) process.stderr.write(`feed error: ${error ? error.message : `status ${status}`}\n`);
        setTimeout(() => poll(editor), 50);
        return;
      }
      if (at >= windowStart && at <= windowEnd) feedAnswersInWindow++;
      if (status === 200) {
        const version = integerAfter(body, CURRENT_VERSION);
        let state = doc.cache.get(version);
        if (!state) {
          const kept = Buffer.from(body);
          state = remember(doc, new DocState(version, () => afterFeed(atSince, JSON.parse(kept.toString()) as ChangeFeedBody).lines));
        }
        editor.feedBase = state;
        adopt(editor, state, at);
      }
      pollSoon(editor);
    });
  };

  const resync = (editor: Editor) => {
    resyncs++;
    editor.patch!.request("GET", `${API}/documents/${editor.doc.id}`, undefined, (error, status, body) => {
      editor.inFlight = false;
      if (error || status !== 200) return;
      const fresh = JSON.parse(body.toString()) as { version: number; content: string };
      const state = remember(editor.doc, DocState.fromText(fresh.version, fresh.content));
      adopt(editor, state, wallNow());
    });
  };

  const sendPatch = (editor: Editor) => {
    editor.inFlight = true;
    inFlight++;
    const { doc } = editor;
    const base = editor.state;
    const seq = ++editor.seq;
    const op = replaceLine(editor.k, `line ${editor.k} typed by ${editor.clientId}, keystroke ${seq}`);
    // The client's request body, key for key (src/client/carry-over.ts, newPatch).
    const body = `{"baseVersion":${base.version},"checksum":"${base.checksum}","clientId":"${editor.clientId}","seq":${seq},"ops":${JSON.stringify(op.wire)}}`;
    const sentAt = wallNow();
    const inWindow = sentAt >= windowStart && sentAt < windowEnd;
    editor.patch!.request("PATCH", doc.contentPath, body, (error, status, answer) => {
      const at = wallNow();
      inFlight--;
      if (error) {
        editor.inFlight = false;
        if (inWindow) sentAtOfFailed.push(sentAt);
        count(patchesStopped ? "aborted" : "error");
        if (!patchesStopped && (statuses.error ?? 0) < 5) process.stderr.write(`patch error: ${error.message}\n`);
        return;
      }
      count(status);
      if (status !== 200) {
        if (inWindow) sentAtOfFailed.push(sentAt);
        resync(editor);
        return;
      }
      editor.inFlight = false;
      const version = integerAfter(answer, VERSION);
      doc.acks.push({ version, sender: editor.k, sentAt });
      if (version > doc.maxVersion) doc.maxVersion = version;
      if (at >= windowStart && at <= windowEnd) {
        acceptedInWindow++;
        patchLatencies.push(at - sentAt);
      }
      let state = doc.cache.get(version);
      if (!state) {
        const kept = Buffer.from(answer);
        const opsSinceBase = () => (JSON.parse(kept.toString()) as { opsSinceBase: Parameters<typeof afterAccepted>[3] }).opsSinceBase;
        state = remember(doc, new DocState(version, () => afterAccepted(base, op.normalized, version, opsSinceBase()).lines));
      }
      adopt(editor, state, at);
    });
  };

  try {
    // Each editor opens its document (which opens its connection), then holds its long poll.
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < editors.length) {
          const editor = editors[next++]!;
          const answer = await rawRequest(editor.feed, "GET", `${API}/documents/${editor.doc.id}`);
          if (answer.status !== 200) throw new Error(`GET of the document answered ${answer.status}`);
          if (editor.patch) await rawRequest(editor.patch, "GET", `${API}/documents/${editor.doc.id}`);
        }
      }),
    );
    for (const editor of editors) poll(editor);
    await waitUntil(() => editors.every((editor) => editor.feed.connected), 60_000, "feed connections");
    const openMs = wallNow() - opened;
    await sendToParent({ type: "ready", editors: editors.length, typists: typists.length });
    const { startAt } = await fromParent<{ type: "start"; startAt: number }>("start", 300_000);
    windowStart = startAt + config.warmupMs;
    windowEnd = windowStart + config.measureMs;
    const lag = watchWindow(windowStart, windowEnd);

    // One ticker for all typists: typist i's k-th tick is due at startAt + (k + i / T) × interval.
    let round = 0;
    let cursor = 0;
    const dueAt = () => startAt + (round + cursor / typists.length) * config.intervalMs;
    let ticker: NodeJS.Timeout | undefined;
    const tick = () => {
      const now = wallNow();
      for (let due = dueAt(); due <= now; due = dueAt()) {
        if (due >= windowEnd || now > hardEnd) return;
        const typist = typists[cursor]!;
        if (due >= windowStart) ticks++;
        if (typist.inFlight) {
          if (due >= windowStart) skippedTicks++;
        } else sendPatch(typist);
        if (++cursor === typists.length) {
          cursor = 0;
          round++;
        }
      }
      ticker = setTimeout(tick, Math.max(0, dueAt() - wallNow()));
    };
    if (typists.length > 0) ticker = setTimeout(tick, Math.max(0, startAt - wallNow()));
    await sleep(Math.max(0, windowEnd - wallNow()));
    clearTimeout(ticker);
    const settled = await waitUntil(() => inFlight === 0, config.drainMs, "").then(
      () => true,
      () => false,
    );
    if (!settled) {
      patchesStopped = true;
      for (const typist of typists) typist.patch!.stop();
    }
    // The feeds catch up (bounded): every editor of a document at its last acknowledged version.
    const drainEnd = Math.min(wallNow() + config.drainMs, hardEnd);
    while (wallNow() < drainEnd && docs.some((doc) => doc.editors.some((editor) => editor.state.version < doc.maxVersion))) await sleep(20);
    lag.stop();

    // End to end, per patch sent in the window: the slowest other editor of its document.
    const endToEnd: number[] = [...sentAtOfFailed.map(() => Number.POSITIVE_INFINITY)];
    let sentInWindow = sentAtOfFailed.length;
    let acknowledgedInWindow = 0;
    for (const doc of docs) {
      for (const ack of doc.acks) {
        if (ack.sentAt < windowStart || ack.sentAt >= windowEnd) continue;
        sentInWindow++;
        acknowledgedInWindow++;
        let slowest = ack.sentAt;
        for (const other of doc.editors) {
          if (other.k === ack.sender) continue;
          const at = firstAtLeast(other.view.versions, ack.version);
          slowest = Math.max(slowest, at < other.view.times.length ? other.view.times[at]! : Number.POSITIVE_INFINITY);
        }
        endToEnd.push(slowest - ack.sentAt);
      }
    }
    // Patches still unanswered when the drain ran out were counted as "aborted" and in sentAtOfFailed.
    return {
      editors: editors.length,
      typists: typists.length,
      documents: docs.length,
      endToEnd,
      patchLatencies,
      sentInWindow,
      acknowledgedInWindow,
      acceptedInWindow,
      statuses,
      resyncs,
      skippedTicks,
      ticks,
      feedAnswersInWindow,
      feedErrors,
      loadEventLoopP99Ms: lag.p99Ms(),
      openMs,
    };
  } finally {
    feedsStopped = true;
    patchesStopped = true;
    for (const editor of editors) {
      editor.feed.stop();
      editor.patch?.stop();
    }
  }
});
