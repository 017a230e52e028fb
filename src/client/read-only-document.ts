import type { Text } from "@codemirror/state";
import { splitLines } from "../core/lines.js";
import { editsOf } from "../core/text-changes.js";
import { validateOps } from "../core/validate-ops.js";
import { RetryNow, type RetryOptions } from "./backoff.js";
import { FolioError } from "./errors.js";
import { Emitter } from "./events.js";
import { runFeed } from "./feed-loop.js";
import type { StreamOpener } from "./feed-stream-loop.js";
import type { FolioClient } from "./http.js";
import type { ChangeFeed, ReadOnlyDocument } from "./types.js";
import { EncryptedCodec } from "./encryption/codec.js";
import { randomClientId } from "./open-document.js";
import { PLAIN_CODEC, type LineCodec } from "./line-codec.js";
import { PresenceChannel, type Presence, type PresencePeer, type PresenceTiming } from "./presence.js";
import type { TextChange } from "./live-types.js";
import { moveBy, replaceBy, serviceTextOf, type MovedText, type ServiceText } from "./service-text.js";

export interface ReadOnlyOptions {
  /** The feed's long-poll wait in seconds (default 25). */
  waitSeconds?: number;
  /** "stream": the read link's event stream, falling back to the long poll by itself; "poll" (the default for now): the long poll only. */
  feed?: "stream" | "poll";
  /** With `feed: "stream"`: how long the stream's first frame may take before the long poll is taken instead (default 5,000 ms). */
  firstFrameMs?: number;
  /** Waits between attempts after a network failure, 5xx, 429 or 503. */
  retry?: RetryOptions;
  /** The link's key of an encrypted document: text and title are decrypted (docs/encryption.md), presence states sealed and opened. */
  key?: string;
  /** This viewer's presence client id (default: a random one). */
  clientId?: string;
  /** The timing of presence (`doc.presence`). */
  presence?: PresenceTiming;
}

/** A change of the followed text, as a live document's remote change (the editor binding applies both alike). */
export type ReadOnlyChange = TextChange;

/** Whether the feed is answering: "offline" from a failed poll (retried with backoff) until one succeeds. */
export type ReadOnlyStatus = "live" | "offline";

/** A document followed through its read-only link: the text, live; nothing can be sent. */
export interface ReadOnlyLiveDocument {
  readonly readId: string;
  /** The text, as a string: it costs the document's length. */
  readonly text: string;
  /** The text as a CodeMirror `Text` (shared, not copied). */
  readonly doc: Text;
  readonly title: string;
  readonly version: number;
  /** true from a DELETED event until RESTORED. */
  readonly deleted: boolean;
  /** true once the link was revoked or replaced: the document stopped following. */
  readonly revoked: boolean;
  readonly status: ReadOnlyStatus;
  /**
   * Who is at the document (docs/api.md, "Presence", the client library): a viewer may announce
   * itself with `presence.set(…)` (its entry is marked `viewer`) and hears the list.
   */
  readonly presence: Presence;
  on(event: "change", listener: (change: ReadOnlyChange) => void): () => void;
  on(event: "title", listener: (title: string) => void): () => void;
  on(event: "status", listener: (status: ReadOnlyStatus) => void): () => void;
  /** The others at the document changed; their cursors are on the text now. */
  on(event: "presence", listener: (others: PresencePeer[]) => void): () => void;
  on(event: "deleted" | "restored" | "revoked", listener: () => void): () => void;
  /** A poll failed (it is retried with backoff); a 404 of the feed is `revoked` instead. */
  on(event: "error", listener: (error: Error) => void): () => void;
  /** Polls now instead of after the backoff of a failed poll (on the browser's `online` event); not before a Retry-After. */
  retryNow(): void;
  /** Stops the feed; a viewer present says goodbye. */
  close(): void;
}

type Events = {
  change: [ReadOnlyChange];
  title: [string];
  status: [ReadOnlyStatus];
  deleted: [];
  restored: [];
  revoked: [];
  error: [Error];
  presence: [PresencePeer[]];
};

/**
 * Opens a document read-only through its link and follows its feed (the document's own feed, served
 * under /read/). Rejects with a FolioError 404 when the link is unknown or revoked, or the document
 * is deleted. RESTORED and ROLLED_BACK bring back an older title, which the feed does not carry: the
 * document is read again for it. With `key`, as openDocument: a WrongKeyError when it does not open it.
 */
export async function openReadOnly(client: FolioClient, readId: string, options: ReadOnlyOptions = {}): Promise<ReadOnlyLiveDocument> {
  const document = await client.read.document(readId);
  const codec = options.key !== undefined ? EncryptedCodec.forDocument(options.key, document) : PLAIN_CODEC;
  const follower = new ReadOnlyFollower(client, readId, document, codec, options);
  follower.start(options);
  follower.presence.start();
  return follower;
}

class ReadOnlyFollower implements ReadOnlyLiveDocument {
  private readonly emitter = new Emitter<Events>();
  private readonly stop = new AbortController();
  private readonly now = new RetryNow();
  /** The service's text: its lines (ciphertext, for an encrypted document) and the shown text. */
  private current: ServiceText;
  title: string;
  deleted = false;
  revoked = false;
  status: ReadOnlyStatus = "live";
  /** The title may be stale (after RESTORED or ROLLED_BACK) or the ops did not fit: read the document again. */
  private rereadWanted = false;
  readonly presence: PresenceChannel;

  constructor(
    private readonly client: FolioClient,
    readonly readId: string,
    document: ReadOnlyDocument,
    private readonly codec: LineCodec,
    options: ReadOnlyOptions,
  ) {
    this.current = serviceTextOf(codec, document.version, document.content);
    this.title = codec.decodeTitle(document.title);
    // The viewer's text is the service's: positions need no mapping but through the versions.
    const clamp = (pos: number) => Math.max(0, Math.min(pos, this.current.text.length));
    const host = { client, place: { readId }, role: "viewer" as const, clientId: options.clientId ?? randomClientId(), codec, signal: this.stop.signal, version: () => this.version };
    const emit = (others: PresencePeer[]) => this.emitter.emit("presence", others);
    this.presence = new PresenceChannel({ ...host, toService: clamp, toLocal: clamp, listening: () => this.emitter.count("presence") > 0, emit }, options.presence);
  }

  get text(): string {
    return this.current.text.toString();
  }
  get doc(): Text {
    return this.current.text;
  }
  get version(): number {
    return this.current.version;
  }

  on<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    const off = this.emitter.on(event, listener);
    if (event === "presence") this.presence.listened();
    return off;
  }

  retryNow(): void {
    this.now.fire();
  }

  close(): void {
    this.presence.close();
    this.stop.abort();
    this.emitter.clear();
  }

  start(options: ReadOnlyOptions): void {
    // The live document's feed loop, polling the read feed: a 404 there means the link is gone for good.
    const changes: FolioClient["changes"] = (readId, query, signal) =>
      this.client.read.changes(readId, query, signal).catch((error: unknown) => {
        if (error instanceof FolioError && error.status === 404) this.markRevoked();
        throw error;
      });
    const events: StreamOpener = (since, signal) =>
      this.client.read.events(this.readId, since, signal).catch((error: unknown) => {
        if (error instanceof FolioError && error.status === 404) this.markRevoked();
        throw error;
      });
    void runFeed({
      client: { ...this.client, changes },
      ...(options.feed === "stream" ? { stream: events, firstFrameMs: options.firstFrameMs } : {}),
      id: this.readId,
      signal: this.stop.signal,
      waitSeconds: options.waitSeconds ?? 25,
      retry: options.retry,
      now: this.now,
      since: () => this.version,
      deliver: (answer) => this.apply(answer),
      presence: (list) => this.presence.heard(list),
      streaming: (open) => this.presence.setStreaming(open),
      failing: (failing, error) => {
        if (this.stop.signal.aborted) return;
        this.setStatus(failing ? "offline" : "live");
        if (failing && error) this.emitter.emit("error", error);
      },
    });
  }

  private async apply(answer: ChangeFeed): Promise<void> {
    for (const event of answer.events) {
      if (event.version <= this.version) continue;
      if (event.changeType === "RENAMED" && event.title !== undefined) this.setTitle(this.codec.decodeTitle(event.title));
      else if (event.changeType === "DELETED") this.setDeleted(true);
      else if (event.changeType === "RESTORED" || event.changeType === "ROLLED_BACK") this.rereadWanted = true;
      if (event.changeType === "RESTORED") this.setDeleted(false);
    }
    if (answer.currentVersion > this.version && answer.content !== undefined) {
      this.moveTo(replaceBy(this.codec, this.current, splitLines(answer.content), answer.currentVersion));
    } else if (answer.currentVersion > this.version && answer.fromVersion === this.version && answer.ops !== undefined) {
      const ops = validateOps(answer.ops);
      const moved = ops.ok ? moveBy(this.codec, this.current, ops.ops, answer.currentVersion) : undefined;
      if (moved) this.moveTo(moved);
      else this.rereadWanted = true;
    }
    // Until a read succeeds, every later answer tries again.
    if (this.rereadWanted) await this.reread();
  }

  /** Reads the document again (its title after a restore or rollback, or a text the feed's ops did not fit). */
  private async reread(): Promise<void> {
    let document: ReadOnlyDocument;
    try {
      document = await this.client.read.document(this.readId, this.stop.signal);
    } catch (error) {
      // Deleted again, or the link is gone: the next poll says which.
      if (!(error instanceof FolioError) || error.status !== 404) throw error;
      this.rereadWanted = false;
      return;
    }
    this.rereadWanted = false;
    if (document.version < this.version) return;
    this.setTitle(this.codec.decodeTitle(document.title));
    this.moveTo(replaceBy(this.codec, this.current, splitLines(document.content), document.version));
  }

  /** Moves to the service's next text, and tells the listeners of the change. */
  private moveTo(moved: MovedText): void {
    const from = this.version;
    this.current = moved.next;
    const step = moved.changes.desc;
    const { changes } = moved;
    if (!changes.empty) this.emitter.emit("change", { origin: "remote", changes, edits: editsOf(changes), version: this.version, mapCursor: (pos) => changes.mapPos(pos, -1) });
    // After the change: an editor told of the others' cursors on the new text has it by then.
    this.presence.moved(from, this.version, (pos) => step.mapPos(pos, 1));
  }

  private setTitle(title: string): void {
    if (title === this.title) return;
    this.title = title;
    this.emitter.emit("title", title);
  }

  private setStatus(status: ReadOnlyStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.emitter.emit("status", status);
  }

  private setDeleted(deleted: boolean): void {
    if (deleted === this.deleted) return;
    this.deleted = deleted;
    this.emitter.emit(deleted ? "deleted" : "restored");
  }

  private markRevoked(): void {
    this.revoked = true;
    this.presence.close();
    this.stop.abort();
    this.emitter.emit("revoked");
  }
}
