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
import { RawEventStream } from "../lib/raw-sse.js";
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
  /** The event stream's path up to its `since` value. */
  streamPath: string;
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
  /** Transport "stream": its Server-Sent Events stream (the feed connection then only opened the document). */
  stream: RawEventStream | undefined;
  /** Typists only. */
  patch: RawConnection | undefined;
  /** Typists only, with cursors on: where its cursor updates go (PUT …/presence/<clientId>). */
  presence: RawConnection | undefined;
  presenceInFlight: boolean;
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
    streamPath: `${API}/documents/${id}/events?since=`,
    cache: new Map([[initial.version, initial]]),
    cacheSize,
    maxVersion: initial.version,
    acks: [],
  };
}

export function simulatedEditor(doc: FollowedDocument, line: number, clientId: string, origin: string): SimulatedEditor {
  const initial = doc.cache.get(doc.maxVersion)!;
  const feed = RawConnection.forOrigin(origin);
  return { doc, line, clientId, state: initial, feedBase: initial, feed, stream: undefined, patch: undefined, presence: undefined, presenceInFlight: false, seq: 0, inFlight: false, view: { versions: [], times: [] } };
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
  /** Transport "stream": `event: presence` frames received in the window (all editors together). */
  presenceFramesInWindow = 0;
  /** Cursor updates (PUT …/presence) sent, and their answers by status. */
  presenceSent = 0;
  readonly presenceStatuses: Record<string, number> = {};
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

  /**
   * Starts every editor's long poll (or, with "stream", its event stream on the keep-alive connection
   * that opened the document, as a browser's EventSource reuses it: one socket per editor either way)
   * and resolves once all are open.
   */
  async follow(transport: "poll" | "stream" = "poll"): Promise<void> {
    if (transport === "poll") {
      for (const editor of this.editors) this.poll(editor);
      await waitUntil(() => this.editors.every((editor) => editor.feed.connected), 60_000, "feed connections");
      return;
    }
    for (const editor of this.editors) this.listen(editor, editor.feed);
    await waitUntil(() => this.editors.every((editor) => editor.stream?.opened === true), 120_000, "event streams");
  }

  /**
   * Cursors: every typist sends its cursor (PUT …/presence/<clientId> with `{"state":{"cursor":…}}`)
   * once per `plan.intervalMs`, half an interval after its patches, on a connection of its own,
   * skipping a tick while the previous one is in flight. Returns its stop.
   */
  startCursorTicker(typists: readonly SimulatedEditor[], plan: TickPlan): () => void {
    let round = 0;
    let cursor = 0;
    const dueAt = () => plan.startAt + (round + 0.5 + plan.phase(typists[cursor]!, cursor)) * plan.intervalMs;
    let ticker: NodeJS.Timeout | undefined;
    const tick = () => {
      const now = wallNow();
      for (let due = dueAt(); due <= now; due = dueAt()) {
        if (due >= plan.endAt || now > this.hardEnd) return;
        const typist = typists[cursor]!;
        if (!typist.presenceInFlight) this.sendCursor(typist, round);
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
      editor.stream?.stop();
      editor.patch?.stop();
      editor.presence?.stop();
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

  /**
   * Holds the editor's event stream from its feed base, first on the connection that opened its
   * document (`over`); reopens it on a new connection (from the newest version seen) when it ends.
   */
  private listen(editor: SimulatedEditor, over?: RawConnection): void {
    if (this.feedsStopped || wallNow() > this.hardEnd) return;
    const { doc } = editor;
    const origin = editor.feed.origin;
    const stream = RawEventStream.forOrigin(origin, {
      onOpen: () => undefined,
      onEvent: (event, id, data) => {
        const at = wallNow();
        if (event === "presence") {
          if (this.inWindow(at)) this.presenceFramesInWindow++;
          return;
        }
        if (event !== "change" || id < 0) return;
        this.feedAnswers++;
        if (this.inWindow(at)) this.feedAnswersInWindow++;
        const atSince = editor.feedBase;
        let state = doc.cache.get(id);
        if (!state) {
          // Built when first needed, from this frame's ops on the text at the stream's previous version.
          const kept = Buffer.from(data);
          state = this.remember(doc, new DocState(id, () => afterFeed(atSince, JSON.parse(kept.toString()) as ChangeFeedBody).lines));
        }
        editor.feedBase = state;
        this.adopt(editor, state, at);
      },
      onEnd: (error) => {
        if (this.feedsStopped) return;
        if (++this.feedErrors < 5) process.stderr.write(`stream error: ${error.message}\n`);
        setTimeout(() => this.listen(editor), 50);
      },
    });
    editor.stream = stream;
    if (over) stream.openOn(over, doc.streamPath + editor.feedBase.version);
    else stream.open(doc.streamPath + editor.feedBase.version);
  }

  private sendCursor(typist: SimulatedEditor, round: number): void {
    typist.presenceInFlight = true;
    this.presenceSent++;
    const body = `{"displayName":"${typist.clientId}","state":{"cursor":{"line":${typist.line},"column":${(round * 7) % 40}}}}`;
    typist.presence!.request("PUT", `${API}/documents/${typist.doc.id}/presence/${typist.clientId}`, body, (error, status) => {
      typist.presenceInFlight = false;
      this.countPresence(error ? (this.patchesStopped ? "aborted" : "error") : status);
    });
  }

  private countPresence = (key: string | number): number => (this.presenceStatuses[key] = (this.presenceStatuses[key] ?? 0) + 1);

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
