/**
 * Open editors against a peer server (the "open-editors" scenario's Hocuspocus and ShareDB rows;
 * bench/baselines/hocuspocus.ts, bench/baselines/sharedb.ts): the same shape as bench/load/editors.ts
 * for Folio. This process owns a share of the documents and all their editors, so a change's way from
 * its typist to every other editor of its document is timed on one clock. Each editor holds one
 * WebSocket (`ws`, no compression) to its document; a seeded share of the editors types one
 * one-line change per `intervalMs`, skipping a tick while its previous change is unacknowledged;
 * editor k of a document owns line k and replaces it. With `cursors`, every typist also sends its
 * cursor once per interval, half an interval after its change.
 *
 * Hocuspocus (its wire protocol, as @hocuspocus/provider speaks it): per document one seed update
 * (20 lines in a Y.Text, made once, the same bytes everywhere) sent over a set-up connection; each
 * editor sends its auth message and sync step 1 and is open once it has the server's sync step 2. A
 * typist keeps its own Y.Doc (the seed plus its own changes: enough to address its line), replaces
 * its line in one transaction and sends the update; Hocuspocus answers it with a sync-status message
 * (the acknowledgement). An editor has a change when an update (or a merged batch) arrives whose
 * range for the typist's Yjs client covers the change's first clock (`Y.parseUpdateMeta`). Cursors:
 * a y-protocols awareness update `{cursor: {line, column}}`.
 *
 * ShareDB (its JSON protocol, as sharedb/lib/client speaks it): documents `{lines: [...]}` created
 * over HTTP; each editor handshakes (`hs`) and subscribes (`s`); a typist submits one json0 list
 * replace `{p: ["lines", k], ld, li}` at the newest version it has seen (the server transforms it if
 * behind) and is acknowledged by the op ack; an editor has a change when the op with the typist's
 * (src, seq) arrives. Cursors: ShareDB presence on the channel `docs.<id>` (`p`, subscribed with `ps`).
 *
 * A WebSocket that closes during a run is not reopened: it counts as a socket error, a change of its
 * typist still unacknowledged fails, and what its editor misses counts as never arrived (infinite).
 *
 * IPC: → ready ← start {startAt} → result (delays computed here), as bench/load/editors.ts.
 */
import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";
import { request } from "undici";
import WebSocket from "ws";
import { Awareness, encodeAwarenessUpdate } from "y-protocols/awareness";
import * as Y from "yjs";
import { fromParent, runChild, sendToParent, sleep, wallNow } from "../lib/child.js";
import { pickTypists, waitUntil, watchWindow } from "./authors-shared.js";
import type { EditorsResult } from "./editors.js";

export interface PeerEditorsConfig {
  server: "hocuspocus" | "sharedb";
  /** `http://127.0.0.1:<port>` */
  origin: string;
  part: number;
  documents: number;
  editorsPerDocument: number;
  typingShare: number;
  seed: number;
  intervalMs: number;
  cursors: boolean;
  warmupMs: number;
  measureMs: number;
  drainMs: number;
  timeLimitMs: number;
}

const LINES = 20;
const INITIAL_LINES = Array.from({ length: LINES }, (_, i) => `line ${i} of a document with a few editors`);

/** One typed change: who sent it when, when it was acknowledged, and when each editor of its document had it. */
interface Change {
  sender: number;
  sentAt: number;
  ackAt: number;
  /** Per editor (by line) of the document: when it had the change; Infinity until then. */
  arrivals: Float64Array;
  /** Hocuspocus: the typist's Yjs client and the change's first clock; ShareDB: the op's seq. */
  clock: number;
}

interface PeerDocument {
  name: string;
  /** Hocuspocus: changes by Yjs client id; ShareDB: by src. Each list in send order. */
  changes: Map<string | number, Change[]>;
  /** ShareDB: the newest version the process knows of (the typists submit at it). */
  version: number;
  /** Hocuspocus: the last update parsed for this document and its meta (a broadcast reaches every editor with the same bytes). */
  lastUpdate?: Buffer;
  lastMeta?: { from: Map<number, number>; to: Map<number, number> };
}

interface PeerEditor {
  doc: PeerDocument;
  line: number;
  socket: WebSocket | undefined;
  open: boolean;
  typist: boolean;
  seq: number;
  inFlight: Change | undefined;
  /** Hocuspocus typists. */
  ydoc?: Y.Doc;
  awareness?: Awareness;
  /** ShareDB: this connection's src (from the handshake) and its text of its own line. */
  src?: string;
  lineText: string;
  presenceInFlight: boolean;
}


const wsUrl = (origin: string) => origin.replace(/^http/, "ws") + "/";

/** Hocuspocus message types (@hocuspocus/server MessageType) and the y-protocols sync steps. */
const HP = { sync: 0, awareness: 1, auth: 2, syncStatus: 8, step1: 0, step2: 1, update: 2, token: 0, authenticated: 2, permissionDenied: 1 } as const;

function hpMessage(name: string, write: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, name);
  write(encoder);
  return encoding.toUint8Array(encoder);
}

const hpAuth = (name: string) =>
  hpMessage(name, (e) => {
    encoding.writeVarUint(e, HP.auth);
    encoding.writeVarUint(e, HP.token);
    encoding.writeVarString(e, "");
  });
const hpStep1 = (name: string, stateVector: Uint8Array) =>
  hpMessage(name, (e) => {
    encoding.writeVarUint(e, HP.sync);
    encoding.writeVarUint(e, HP.step1);
    encoding.writeVarUint8Array(e, stateVector);
  });
const hpUpdate = (name: string, update: Uint8Array) =>
  hpMessage(name, (e) => {
    encoding.writeVarUint(e, HP.sync);
    encoding.writeVarUint(e, HP.update);
    encoding.writeVarUint8Array(e, update);
  });
const hpAwareness = (name: string, update: Uint8Array) =>
  hpMessage(name, (e) => {
    encoding.writeVarUint(e, HP.awareness);
    encoding.writeVarUint8Array(e, update);
  });

/** The seed: the 20 lines in the Y.Text "default" by a fixed client, the same bytes for every document. */
function seedUpdate(): Uint8Array {
  const doc = new Y.Doc();
  doc.clientID = 1;
  doc.getText("default").insert(0, INITIAL_LINES.join("\n"));
  return Y.encodeStateAsUpdate(doc);
}

runChild<PeerEditorsConfig, EditorsResult>(async (config) => {
  const hardEnd = wallNow() + config.timeLimitMs;
  const opened = wallNow();
  const url = wsUrl(config.origin);
  const statuses: Record<string, number> = {};
  const count = (key: string) => (statuses[key] = (statuses[key] ?? 0) + 1);
  const presenceStatuses: Record<string, number> = {};
  let socketErrors = 0;
  let deliveriesInWindow = 0;
  let presenceInWindow = 0;
  let presenceSent = 0;
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  let stopped = false;
  const inWindow = (at: number) => at >= windowStart && at <= windowEnd;
  const patchLatencies: number[] = [];
  const failedSentAt: number[] = [];
  let ticks = 0;
  let skippedTicks = 0;
  const seed = seedUpdate();

  // The documents.
  const docs: PeerDocument[] = Array.from({ length: config.documents }, (_, d) => ({ name: `editors-${config.part}-${d}-${config.seed}`, changes: new Map(), version: 0 }));
  if (config.server === "sharedb") {
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < docs.length) {
          const doc = docs[next++]!;
          const answer = await request(`${config.origin}/create/${doc.name}`, { method: "POST" });
          const body = (await answer.body.json()) as { version?: number };
          if (answer.statusCode !== 201) throw new Error(`POST /create answered ${answer.statusCode}`);
          doc.version = body.version ?? 1;
        }
      }),
    );
  } else {
    // One set-up connection per 16 workers, each seeding its documents one after the other.
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        const socket = new WebSocket(url, { perMessageDeflate: false });
        await new Promise<void>((resolve, reject) => {
          socket.once("open", () => resolve());
          socket.once("error", reject);
        });
        let waiting: { name: string; done: () => void } | undefined;
        socket.on("message", (data: Buffer) => {
          const decoder = decoding.createDecoder(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
          const name = decoding.readVarString(decoder);
          if (decoding.readVarUint(decoder) === HP.syncStatus && waiting?.name === name) waiting.done();
        });
        while (next < docs.length) {
          const doc = docs[next++]!;
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`seeding ${doc.name}: no sync status within 30 s`)), 30_000);
            waiting = {
              name: doc.name,
              done: () => {
                clearTimeout(timer);
                resolve();
              },
            };
            socket.send(hpAuth(doc.name));
            socket.send(hpUpdate(doc.name, seed));
          });
        }
        socket.close();
      }),
    );
  }

  // The editors; editor k of a document owns line k.
  const editors: PeerEditor[] = [];
  const editorsOf = new Map<PeerDocument, PeerEditor[]>();
  for (const doc of docs) {
    const ofDoc = Array.from({ length: config.editorsPerDocument }, (_, line): PeerEditor => ({ doc, line, socket: undefined, open: false, typist: false, seq: 0, inFlight: undefined, lineText: INITIAL_LINES[line]!, presenceInFlight: false }));
    editorsOf.set(doc, ofDoc);
    editors.push(...ofDoc);
  }
  const typists = pickTypists(editors, config.typingShare, config.seed + config.part);
  for (const typist of typists) {
    typist.typist = true;
    if (config.server === "hocuspocus") {
      const ydoc = new Y.Doc();
      Y.applyUpdate(ydoc, seed);
      typist.ydoc = ydoc;
      if (config.cursors) typist.awareness = new Awareness(ydoc);
    }
  }

  /** Marks the changes of `key` whose clock lies in [from, to) as arrived at `editor` (newest first; they arrive in order). */
  const arrived = (editor: PeerEditor, key: string | number, from: number, to: number, at: number) => {
    const changes = editor.doc.changes.get(key);
    if (!changes) return;
    for (let i = changes.length - 1; i >= 0; i--) {
      const change = changes[i]!;
      if (change.clock < from) break;
      if (change.clock < to && change.arrivals[editor.line] === Number.POSITIVE_INFINITY) change.arrivals[editor.line] = at;
    }
  };
  const acknowledged = (editor: PeerEditor, at: number) => {
    const change = editor.inFlight;
    if (!change) return;
    editor.inFlight = undefined;
    change.ackAt = at;
    count("acknowledged");
    if (inWindow(at)) patchLatencies.push(at - change.sentAt);
  };

  const onHocuspocus = (editor: PeerEditor, data: Buffer) => {
    const at = wallNow();
    const decoder = decoding.createDecoder(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    decoding.readVarString(decoder);
    const type = decoding.readVarUint(decoder);
    if (type === HP.sync) {
      const step = decoding.readVarUint(decoder);
      if (step === HP.step2) {
        editor.open = true;
        return;
      }
      if (step !== HP.update) return;
      if (inWindow(at)) deliveriesInWindow++;
      const payload = decoding.readVarUint8Array(decoder);
      const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
      const { doc } = editor;
      if (!doc.lastUpdate || !doc.lastMeta || !doc.lastUpdate.equals(bytes)) {
        doc.lastUpdate = Buffer.from(bytes);
        doc.lastMeta = Y.parseUpdateMeta(payload);
      }
      const meta = doc.lastMeta;
      for (const [client, from] of meta.from) arrived(editor, client, from, meta.to.get(client) ?? from, at);
    } else if (type === HP.syncStatus) acknowledged(editor, at);
    else if (type === HP.awareness) {
      if (inWindow(at)) presenceInWindow++;
    } else if (type === HP.auth && decoding.readVarUint(decoder) === HP.permissionDenied) count("permission-denied");
  };

  const onShareDb = (editor: PeerEditor, data: Buffer) => {
    const at = wallNow();
    const message = JSON.parse(data.toString()) as { a: string; id?: string; d?: string; v?: number; src?: string; seq?: number; op?: unknown; data?: { v: number }; error?: { message: string } };
    if (message.error) {
      count(`error ${message.a}: ${message.error.message.slice(0, 60)}`);
      if (message.a === "op" && editor.inFlight) {
        failedSentAt.push(editor.inFlight.sentAt);
        editor.inFlight = undefined;
      }
      return;
    }
    switch (message.a) {
      case "hs":
        editor.src = message.id;
        editor.socket!.send(JSON.stringify({ a: "s", c: "docs", d: editor.doc.name }));
        if (config.cursors) editor.socket!.send(JSON.stringify({ a: "ps", ch: `docs.${editor.doc.name}`, seq: 1 }));
        return;
      case "s":
        if (message.data && message.data.v > editor.doc.version) editor.doc.version = message.data.v;
        editor.open = true;
        return;
      case "op":
        if (message.v !== undefined && message.v + 1 > editor.doc.version) editor.doc.version = message.v + 1;
        if (!("op" in message)) {
          if (message.src === editor.src) acknowledged(editor, at);
          return;
        }
        if (inWindow(at)) deliveriesInWindow++;
        if (message.src !== undefined && message.seq !== undefined) arrived(editor, message.src, message.seq, message.seq + 1, at);
        return;
      case "p":
        // ShareDB answers a presence submission with the same message (an ack): only the others' count.
        if (message.src !== editor.src && inWindow(at)) presenceInWindow++;
        return;
      default:
    }
  };

  const connect = (editor: PeerEditor) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    editor.socket = socket;
    socket.on("open", () => {
      if (config.server === "hocuspocus") {
        socket.send(hpAuth(editor.doc.name));
        socket.send(hpStep1(editor.doc.name, editor.ydoc ? Y.encodeStateVector(editor.ydoc) : new Uint8Array([0])));
      } else socket.send(JSON.stringify({ a: "hs", protocol: 1, protocolMinor: 1, id: null }));
    });
    socket.on("message", (data: Buffer) => (config.server === "hocuspocus" ? onHocuspocus(editor, data) : onShareDb(editor, data)));
    socket.on("error", (error) => {
      if (stopped) return;
      if (++socketErrors < 5) process.stderr.write(`socket error: ${error.message}\n`);
    });
    socket.on("close", () => {
      editor.open = false;
      if (stopped) return;
      socketErrors++;
      if (editor.inFlight) {
        failedSentAt.push(editor.inFlight.sentAt);
        editor.inFlight = undefined;
      }
    });
  };

  const sendChange = (typist: PeerEditor) => {
    if (!typist.open) return;
    const seq = ++typist.seq;
    const text = `line ${typist.line} typed by editor ${typist.doc.name}/${typist.line}, keystroke ${seq}`;
    const change: Change = { sender: typist.line, sentAt: 0, ackAt: Number.NaN, arrivals: new Float64Array(config.editorsPerDocument).fill(Number.POSITIVE_INFINITY), clock: 0 };
    let key: string | number;
    let message: Uint8Array | string;
    if (config.server === "hocuspocus") {
      const ydoc = typist.ydoc!;
      const ytext = ydoc.getText("default");
      const lines = String(ytext.toJSON()).split("\n");
      const start = lines.slice(0, typist.line).reduce((sum, line) => sum + line.length + 1, 0);
      let update: Uint8Array | undefined;
      const keep = (u: Uint8Array) => (update = u);
      ydoc.on("update", keep);
      ydoc.transact(() => {
        ytext.delete(start, lines[typist.line]!.length);
        ytext.insert(start, text);
      });
      ydoc.off("update", keep);
      key = ydoc.clientID;
      change.clock = Y.parseUpdateMeta(update!).from.get(ydoc.clientID) ?? 0;
      message = hpUpdate(typist.doc.name, update!);
    } else {
      key = typist.src!;
      change.clock = seq;
      message = JSON.stringify({ a: "op", c: "docs", d: typist.doc.name, v: typist.doc.version, seq, op: [{ p: ["lines", typist.line], ld: typist.lineText, li: text }] });
      typist.lineText = text;
    }
    const list = typist.doc.changes.get(key) ?? [];
    typist.doc.changes.set(key, list);
    list.push(change);
    typist.inFlight = change;
    change.sentAt = wallNow();
    typist.socket!.send(message);
  };

  const sendCursor = (typist: PeerEditor, round: number) => {
    if (!typist.open) return;
    presenceSent++;
    const cursor = { line: typist.line, column: (round * 7) % 40 };
    if (config.server === "hocuspocus") {
      const awareness = typist.awareness!;
      awareness.setLocalState({ user: { name: `editor ${typist.line}` }, cursor });
      typist.socket!.send(hpAwareness(typist.doc.name, encodeAwarenessUpdate(awareness, [typist.ydoc!.clientID])));
    } else {
      typist.socket!.send(JSON.stringify({ a: "p", ch: `docs.${typist.doc.name}`, id: `cursor-${typist.src}`, p: { user: `editor ${typist.line}`, cursor }, pv: round }));
    }
    presenceStatuses.sent = (presenceStatuses.sent ?? 0) + 1;
  };

  try {
    // Every editor opens its WebSocket and its document, 64 at a time.
    let nextEditor = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (nextEditor < editors.length) {
          const editor = editors[nextEditor++]!;
          connect(editor);
          await waitUntil(() => editor.open, 60_000, `editor ${editor.doc.name}/${editor.line} open`);
        }
      }),
    );
    const openMs = wallNow() - opened;
    await sendToParent({ type: "ready", editors: editors.length, typists: typists.length });
    const { startAt } = await fromParent<{ type: "start"; startAt: number }>("start", 300_000);
    windowStart = startAt + config.warmupMs;
    windowEnd = windowStart + config.measureMs;
    const lag = watchWindow(windowStart, windowEnd);

    // Typist i's k-th tick is due at startAt + (k + i / T) × interval (its cursor half an interval later).
    const timers: NodeJS.Timeout[] = [];
    const ticker = (offset: number, act: (typist: PeerEditor, round: number) => void, counted: boolean) => {
      let round = 0;
      let cursor = 0;
      const dueAt = () => startAt + (round + offset + cursor / typists.length) * config.intervalMs;
      const tick = () => {
        const now = wallNow();
        for (let due = dueAt(); due <= now; due = dueAt()) {
          if (due >= windowEnd || now > hardEnd) return;
          act(typists[cursor]!, round);
          if (counted && due >= windowStart) ticks++;
          if (++cursor === typists.length) {
            cursor = 0;
            round++;
          }
        }
        timers.push(setTimeout(tick, Math.max(0, dueAt() - wallNow())));
      };
      if (typists.length > 0) timers.push(setTimeout(tick, Math.max(0, startAt - wallNow())));
    };
    ticker(
      0,
      (typist) => {
        if (typist.inFlight) {
          if (wallNow() >= windowStart) skippedTicks++;
        } else sendChange(typist);
      },
      true,
    );
    if (config.cursors) ticker(0.5, (typist, round) => sendCursor(typist, round), false);
    await sleep(Math.max(0, windowEnd - wallNow()));
    // Changes in flight get the drain bound; then every editor gets it to catch up.
    await waitUntil(() => typists.every((typist) => !typist.inFlight), config.drainMs, "").catch(() => undefined);
    for (const typist of typists) {
      if (!typist.inFlight) continue;
      failedSentAt.push(typist.inFlight.sentAt);
      typist.inFlight = undefined;
      count("aborted");
    }
    const allArrived = () => docs.every((doc) => [...doc.changes.values()].every((list) => list.every((c) => Number.isNaN(c.ackAt) || c.arrivals.every((at, line) => line === c.sender || at < Number.POSITIVE_INFINITY))));
    const catchUpEnd = Math.min(wallNow() + config.drainMs, hardEnd);
    while (wallNow() < catchUpEnd && !allArrived()) await sleep(20);
    timers.forEach((timer) => clearTimeout(timer));
    lag.stop();

    const sentAtOfFailed = failedSentAt.filter((sentAt) => sentAt >= windowStart && sentAt < windowEnd);
    const endToEnd: number[] = sentAtOfFailed.map(() => Number.POSITIVE_INFINITY);
    let sentInWindow = sentAtOfFailed.length;
    let acknowledgedInWindow = 0;
    let acceptedInWindow = 0;
    for (const doc of docs) {
      for (const list of doc.changes.values()) {
        for (const change of list) {
          if (inWindow(change.ackAt)) acceptedInWindow++;
          if (change.sentAt < windowStart || change.sentAt >= windowEnd || Number.isNaN(change.ackAt)) continue;
          sentInWindow++;
          acknowledgedInWindow++;
          let slowest = change.sentAt;
          change.arrivals.forEach((at, line) => {
            if (line !== change.sender) slowest = Math.max(slowest, at);
          });
          endToEnd.push(slowest - change.sentAt);
        }
      }
    }
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
      resyncs: 0,
      skippedTicks,
      ticks,
      feedAnswersInWindow: deliveriesInWindow,
      feedErrors: socketErrors,
      presenceFramesInWindow: presenceInWindow,
      presenceSent,
      presenceStatuses,
      loadEventLoopP99Ms: lag.p99Ms(),
      openMs,
    };
  } finally {
    stopped = true;
    for (const editor of editors) {
      editor.socket?.terminate();
      editor.awareness?.destroy();
    }
  }
});
