/**
 * The simulated editors of the authors and open-editors load generators (bench/load/authors.ts,
 * bench/load/editors.ts): each holds one long poll on its document's feed at all times, as the SDK's
 * client does (docs/editing-protocol.md, "Following the feed"); a typist sends a one-line patch on a
 * connection of its own, skipping a tick while its previous patch is in flight. An editor's view
 * advances with every feed answer and with its own 200s (`opsSinceBase` plus its rebased op).
 *
 * So that thousands of editors fit on part of one core: raw keep-alive connections
 * (bench/lib/raw-http.ts), one ticker for all typists, one text per (document, version) shared by all
 * its editors and built (body parsed, ops applied) only when an editor first patches on it. A wrong
 * text still shows: the next patch's checksum would not match, and the service would refuse it
 * (counted as a 409/422 and a re-sync). A burst's answers are all read and timestamped before the
 * next long polls are written.
 */
import { sleep, wallNow } from "../lib/child.js";
import { API } from "../lib/http.js";
import { integerAfter, rawRequest, RawConnection } from "../lib/raw-http.js";
import { DocState, afterAccepted, afterFeed, replaceLine, type ChangeFeedBody } from "../lib/replica.js";
import { waitUntil } from "./authors-shared.js";

const CURRENT_VERSION = Buffer.from('"currentVersion":');
const VERSION = Buffer.from('"version":');

/** A document as its editors follow it: texts shared by version, the newest version seen, every 200. */
export interface FollowedDocument {
  id: string;
  contentPath: string;
  /** The long poll's path up to its `since` value. */
  feedPath: string;
  cache: Map<number, DocState>;
  /** Versions kept for sharing (a state not yet built keeps its answer's body). */
  cacheSize: number;
  maxVersion: number;
  /** Every 200 of a patch to this document: the version, who sent it (its line), when it was sent and when answered. */
  acks: { version: number; sender: number; sentAt: number; at: number }[];
}

export interface SimulatedEditor {
  doc: FollowedDocument;
  /** The line this editor owns and replaces; also its sender number in `doc.acks`. */
  line: number;
  clientId: string;
  state: DocState;
  /** The text of the last feed answer: the feed is asked from its version, as the SDK's client does. */
  feedBase: DocState;
  feed: RawConnection;
  /** Typists only. */
  patch: RawConnection | undefined;
  seq: number;
  inFlight: boolean;
  /** When its view reached which version. */
  view: { versions: number[]; times: number[] };
}

export function followedDocument(id: string, waitSeconds: number, initial: DocState, cacheSize: number): FollowedDocument {
  return {
    id,
    contentPath: `${API}/documents/${id}/content`,
    feedPath: `${API}/documents/${id}/changes?wait=${waitSeconds}&since=`,
    cache: new Map([[initial.version, initial]]),
    cacheSize,
    maxVersion: initial.version,
    acks: [],
  };
}

export function simulatedEditor(doc: FollowedDocument, line: number, clientId: string, origin: string): SimulatedEditor {
  const initial = doc.cache.get(doc.maxVersion)!;
  const feed = RawConnection.forOrigin(origin);
  return { doc, line, clientId, state: initial, feedBase: initial, feed, patch: undefined, seq: 0, inFlight: false, view: { versions: [], times: [] } };
}

/** When the typists tick: typist i's k-th tick is due at startAt + (k + phase(i)) × intervalMs, the last before `endAt`. */
export interface TickPlan {
  startAt: number;
  intervalMs: number;
  endAt: number;
  /** Ticks due from here on are counted (in `ticks` and `skippedTicks`). */
  countFrom: number;
  phase: (typist: SimulatedEditor, index: number) => number;
}

/** The editors of one process, their polls, patches and re-syncs, and what they counted. */
export class EditorPool {
  readonly statuses: Record<string, number> = {};
  /** Send → 200 of each patch answered inside the window. */
  readonly patchLatencies: number[] = [];
  /** When each patch without a 200 (aborted, failed, 409/422) was sent. */
  readonly failedSentAt: number[] = [];
  /** With `debug`: a line per patch answered. */
  readonly debugLines: string[] = [];
  sent = 0;
  inFlight = 0;
  resyncs = 0;
  ticks = 0;
  skippedTicks = 0;
  /** Feed answers (200 and 204) received in the whole run, and inside the window. */
  feedAnswers = 0;
  feedAnswersInWindow = 0;
  feedErrors = 0;
  windowStart = Number.POSITIVE_INFINITY;
  windowEnd = Number.POSITIVE_INFINITY;
  private feedsStopped = false;
  private patchesStopped = false;
  private readonly repoll: SimulatedEditor[] = [];

  constructor(
    readonly editors: readonly SimulatedEditor[],
    /** Nothing is sent after this wall time. */
    private readonly hardEnd: number,
    /** The text a typist puts into its line with its `seq`-th patch. */
    private readonly typed: (typist: SimulatedEditor, seq: number) => string,
    private readonly debug = false,
  ) {}

  /** Each editor opens its document with a GET on each of `connections(editor)`, `parallel` at a time. */
  async open(parallel: number, connections: (editor: SimulatedEditor) => RawConnection[]): Promise<void> {
    const opens = this.editors.flatMap((editor) => connections(editor).map((connection) => ({ connection, path: `${API}/documents/${editor.doc.id}` })));
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(parallel, opens.length) }, async () => {
        while (next < opens.length) {
          const { connection, path } = opens[next++]!;
          const answer = await rawRequest(connection, "GET", path);
          if (answer.status !== 200) throw new Error(`GET of the document answered ${answer.status}`);
        }
      }),
    );
  }

  /** Starts every editor's long poll and resolves once all feed connections are open. */
  async follow(): Promise<void> {
    for (const editor of this.editors) this.poll(editor);
    await waitUntil(() => this.editors.every((editor) => editor.feed.connected), 60_000, "feed connections");
  }

  /** One ticker for all typists (none: no ticker); returns its stop. */
  startTicker(typists: readonly SimulatedEditor[], plan: TickPlan): () => void {
    let round = 0;
    let cursor = 0;
    const dueAt = () => plan.startAt + (round + plan.phase(typists[cursor]!, cursor)) * plan.intervalMs;
    let ticker: NodeJS.Timeout | undefined;
    const tick = () => {
      const now = wallNow();
      for (let due = dueAt(); due <= now; due = dueAt()) {
        if (due >= plan.endAt || now > this.hardEnd) return;
        const typist = typists[cursor]!;
        const counted = due >= plan.countFrom;
        if (counted) this.ticks++;
        if (typist.inFlight) {
          if (counted) this.skippedTicks++;
        } else this.sendPatch(typist);
        if (++cursor === typists.length) {
          cursor = 0;
          round++;
        }
      }
      ticker = setTimeout(tick, Math.max(0, dueAt() - wallNow()));
    };
    if (typists.length > 0) ticker = setTimeout(tick, Math.max(0, plan.startAt - wallNow()));
    return () => clearTimeout(ticker);
  }

  /** Patches still in flight get `drainMs`; then they are given up (and counted as "aborted"). */
  async settlePatches(drainMs: number): Promise<void> {
    if (await waitUntil(() => this.inFlight === 0, drainMs, "").then(() => true, () => false)) return;
    this.patchesStopped = true;
    for (const editor of this.editors) editor.patch?.stop();
  }

  /** The feeds catch up, until `deadline` at most: every editor at its document's newest version. */
  async catchUp(deadline: number): Promise<void> {
    while (wallNow() < deadline && this.editors.some((editor) => editor.state.version < editor.doc.maxVersion)) await sleep(20);
  }

  stop(): void {
    this.feedsStopped = true;
    this.patchesStopped = true;
    for (const editor of this.editors) {
      editor.feed.stop();
      editor.patch?.stop();
    }
  }

  private inWindow = (at: number): boolean => at >= this.windowStart && at <= this.windowEnd;
  private count = (key: string | number): number => (this.statuses[key] = (this.statuses[key] ?? 0) + 1);

  private remember(doc: FollowedDocument, state: DocState): DocState {
    doc.cache.set(state.version, state);
    // Insertion order is close to version order; a miss later costs a recomputation, never a wrong text.
    for (const key of doc.cache.keys()) {
      if (doc.cache.size <= doc.cacheSize) break;
      doc.cache.delete(key);
    }
    return state;
  }

  private adopt(editor: SimulatedEditor, state: DocState, at: number): void {
    if (state.version <= editor.state.version) return;
    editor.state = state;
    editor.view.versions.push(state.version);
    editor.view.times.push(at);
    if (state.version > editor.doc.maxVersion) editor.doc.maxVersion = state.version;
  }

  private pollSoon(editor: SimulatedEditor): void {
    if (this.repoll.push(editor) === 1) setImmediate(() => this.repoll.splice(0).forEach((next) => this.poll(next)));
  }

  private poll(editor: SimulatedEditor): void {
    if (this.feedsStopped || wallNow() > this.hardEnd) return;
    const atSince = editor.feedBase;
    const { doc } = editor;
    editor.feed.request("GET", doc.feedPath + atSince.version, undefined, (error, status, body) => {
      const at = wallNow();
      if (error || (status !== 200 && status !== 204)) {
        if (this.feedsStopped) return;
        if (++this.feedErrors < 5) process.stderr.write(`feed error: ${error ? error.message : `status ${status}`}\n`);
        setTimeout(() => this.poll(editor), 50);
        return;
      }
      this.feedAnswers++;
      if (this.inWindow(at)) this.feedAnswersInWindow++;
      if (status === 200) {
        const version = integerAfter(body, CURRENT_VERSION);
        let state = doc.cache.get(version);
        if (!state) {
          // The text is built when first needed (a patch on it), from this answer's ops on the text at `since`.
          const kept = Buffer.from(body);
          state = this.remember(doc, new DocState(version, () => afterFeed(atSince, JSON.parse(kept.toString()) as ChangeFeedBody).lines));
        }
        editor.feedBase = state;
        this.adopt(editor, state, at);
      }
      this.pollSoon(editor);
    });
  }

  private resync(editor: SimulatedEditor): void {
    this.resyncs++;
    editor.patch!.request("GET", `${API}/documents/${editor.doc.id}`, undefined, (error, status, body) => {
      editor.inFlight = false;
      if (error || status !== 200) return;
      const fresh = JSON.parse(body.toString()) as { version: number; content: string };
      const state = this.remember(editor.doc, DocState.fromText(fresh.version, fresh.content));
      if (state.version > editor.feedBase.version) editor.feedBase = state;
      this.adopt(editor, state, wallNow());
    });
  }

  private sendPatch(editor: SimulatedEditor): void {
    editor.inFlight = true;
    this.inFlight++;
    const { doc } = editor;
    const base = editor.state;
    const seq = ++editor.seq;
    const op = replaceLine(editor.line, this.typed(editor, seq));
    // The client's request body, key for key (src/client/carry-over.ts, newPatch).
    const body = `{"baseVersion":${base.version},"checksum":"${base.checksum}","clientId":"${editor.clientId}","seq":${seq},"ops":${JSON.stringify(op.wire)}}`;
    const sentAt = wallNow();
    this.sent++;
    editor.patch!.request("PATCH", doc.contentPath, body, (error, status, answer) => {
      const at = wallNow();
      this.inFlight--;
      if (error) {
        editor.inFlight = false;
        this.failedSentAt.push(sentAt);
        if (this.debug) this.debugLines.push(`fail ${editor.line} sent +${(sentAt - this.windowStart).toFixed(0)} base ${base.version}`);
        this.count(this.patchesStopped ? "aborted" : "error");
        if (!this.patchesStopped && (this.statuses.error ?? 0) < 5) process.stderr.write(`patch error: ${error.message}\n`);
        return;
      }
      this.count(status);
      if (status !== 200) {
        this.failedSentAt.push(sentAt);
        this.resync(editor);
        return;
      }
      editor.inFlight = false;
      const version = integerAfter(answer, VERSION);
      doc.acks.push({ version, sender: editor.line, sentAt, at });
      if (version > doc.maxVersion) doc.maxVersion = version;
      if (this.inWindow(at)) this.patchLatencies.push(at - sentAt);
      if (this.debug) this.debugLines.push(`ack ${editor.line} sent +${(sentAt - this.windowStart).toFixed(0)} took ${(at - sentAt).toFixed(0)} v${version} base ${base.version}`);
      let state = doc.cache.get(version);
      if (!state) {
        // The text is built when first needed: the foreign ops on the base, then this editor's op rebased over them.
        const kept = Buffer.from(answer);
        const opsSinceBase = () => (JSON.parse(kept.toString()) as { opsSinceBase: Parameters<typeof afterAccepted>[3] }).opsSinceBase;
        state = this.remember(doc, new DocState(version, () => afterAccepted(base, op.normalized, version, opsSinceBase()).lines));
      }
      this.adopt(editor, state, at);
    });
  }
}
