import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { asError, type ChangeFeedView } from "../../service/change-feed.js";
import type { Clock, Timer } from "../../service/clock.js";
import type { PresenceEntry } from "../../service/presence.js";
import type { PresenceListener } from "../../service/presence-watchers.js";
import { presenceJson } from "./presence.js";
import { changeFeedJson } from "../ops-json.js";

// docs/api.md, "The event stream": what a stream sends, and docs/choices.md for what the issue left open.

/**
 * What a stream's loop asks for: the next answer since `since`, waiting up to `waitSeconds`, or
 * `undefined` when none came (ChangeFeed.next, ReadLinks.changes); `signal` ends the wait at once.
 */
export type StreamNext = (since: number, waitSeconds: number, signal: AbortSignal) => Promise<ChangeFeedView | undefined>;

/** How a stream hears its document's presence list (src/service/presence-watchers.ts); returns how to stop. */
export type StreamPresence = (listener: PresenceListener) => () => void;

/** Presence frames, made once per list sent and shared by every stream of both routes. */
const presenceFrames = new WeakMap<readonly PresenceEntry[], Buffer>();

function presenceFrame(clients: readonly PresenceEntry[]): Buffer {
  let frame = presenceFrames.get(clients);
  if (!frame) presenceFrames.set(clients, (frame = Buffer.from(`event: presence\ndata: ${JSON.stringify(presenceJson(clients))}\n\n`, "utf8")));
  return frame;
}

export interface EventStreamOptions {
  clock: Clock;
  /** The longest quiet spell without a byte on the stream: a `: keep-alive` comment is sent after it (15 s). */
  keepAliveSeconds?: number;
  /** How long a client may leave the stream's bytes unread before it is dropped (30 s). */
  drainSeconds?: number;
}

export const KEEP_ALIVE_SECONDS = 15;
export const DRAIN_SECONDS = 30;

export const EVENT_STREAM_MEDIA = "text/event-stream";
const OPENING = Buffer.from(": open\n\n");
const KEEP_ALIVE = Buffer.from(": keep-alive\n\n");

/** One open stream: the bytes' way out (the response itself) and how its wait is ended. */
interface Stream {
  raw: ServerResponse;
  /** Aborted when the stream ends (or its client goes): ends the wait under way in the hub at once. */
  abort: AbortController;
  /** While the client is behind on reading: the timer that drops it, and what lets the loop go on. */
  drain?: Timer;
  drained?: () => void;
  /** Stops hearing the presence list. */
  stopPresence?: () => void;
  /** The newest presence list not written yet, held while the client is behind on reading. */
  presencePending?: readonly PresenceEntry[];
}

/**
 * The Server-Sent Events streams of the change feeds. A stream is the long poll in a loop on one
 * connection: the first answer (or 404) is asked for without waiting, so an error leaves as
 * problem+json before any stream byte; then each answer is an `event: change` frame and the loop
 * asks again from its `currentVersion`, waiting up to the keep-alive interval, after which a comment
 * goes out. Bounded: the next answer is asked for only once the last one's bytes left for the
 * socket, so a stream holds at most two answers' bytes, and a client that leaves them unread for
 * `drainSeconds` is dropped. Every answer object's frame is made once and shared by the streams of
 * this set (as feed-reply.ts shares long-poll bodies); each route makes its own set.
 */
export class EventStreams {
  private readonly frames = new WeakMap<ChangeFeedView, Buffer>();
  private readonly open = new Set<Stream>();
  private closed = false;
  private readonly keepAliveSeconds: number;
  private readonly drainMs: number;

  constructor(private readonly options: EventStreamOptions) {
    this.keepAliveSeconds = options.keepAliveSeconds ?? KEEP_ALIVE_SECONDS;
    this.drainMs = (options.drainSeconds ?? DRAIN_SECONDS) * 1000;
  }

  /** Streams under way (for tests and metrics). */
  get size(): number {
    return this.open.size;
  }

  /** Answers `reply` with a stream of what `next` gives from `since` on. Not async: the first answer's settlement opens the stream. */
  serve(request: FastifyRequest, reply: FastifyReply, since: number, next: StreamNext, presence?: StreamPresence): void {
    const abort = new AbortController();
    const onClose = () => abort.abort();
    reply.raw.on("close", onClose);
    next(since, 0, abort.signal).then(
      (answer) => {
        if (abort.signal.aborted) return;
        if (this.closed) return void reply.code(204).send(null);
        const stream: Stream = { raw: reply.raw, abort };
        this.open.add(stream);
        reply.raw.on("close", () => this.end(stream));
        // The frames go straight to the response: no stream object between them and the socket, which
        // a stream would hold for as long as it is open (docs/architecture.md, "The long-poll path").
        // Hijacked, the reply skips the onSend hook, so its headers are written here; the onResponse
        // hooks (metrics, the wait limit) still run when the response ends.
        reply.hijack();
        const headers: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
        reply.raw.writeHead(200, {
          ...headers,
          "content-type": EVENT_STREAM_MEDIA,
          "cache-control": "no-store",
          // nginx passes the stream on as it comes instead of buffering it (deploy/nginx.conf says so too).
          "x-accel-buffering": "no",
          "x-request-id": request.id,
          "x-content-type-options": "nosniff",
        });
        // Runs up to its first wait before returning: the first frame is on the stream before any presence frame.
        this.loop(request, stream, next, answer ? answer.currentVersion : since, answer ? this.frame(answer) : OPENING).catch((error: unknown) => {
          request.log.error({ err: error }, "an event stream failed");
          this.end(stream, true);
        });
        if (presence && this.open.has(stream)) stream.stopPresence = presence((clients) => this.presence(stream, clients));
      },
      (error: unknown) => {
        reply.raw.off("close", onClose);
        void reply.send(asError(error));
      },
    );
  }

  /**
   * Writes a presence list, an `event: presence` without `id` (a reconnect resumes from the last
   * change). A client behind on reading gets only the newest list once it has read the rest.
   */
  private presence(stream: Stream, clients: readonly PresenceEntry[]): void {
    if (!this.open.has(stream)) return;
    if (!stream.raw.writableNeedDrain) return void stream.raw.write(presenceFrame(clients));
    if (stream.presencePending === undefined) {
      stream.raw.once("drain", () => {
        const pending = stream.presencePending;
        stream.presencePending = undefined;
        if (pending && this.open.has(stream)) this.presence(stream, pending);
      });
    }
    stream.presencePending = clients;
  }

  /**
   * Ends every stream at once and refuses new ones (shutdown: a client reconnects elsewhere, with
   * Last-Event-ID). A stream whose client is behind on reading is dropped, so that it cannot hold the shutdown.
   */
  close(): void {
    this.closed = true;
    for (const stream of [...this.open]) this.end(stream, stream.drain !== undefined || stream.raw.writableNeedDrain);
  }

  /**
   * Writes `first`, then asks for the next answer from `since`, waiting up to the keep-alive
   * interval, and writes it (or a keep-alive comment), for as long as the stream is open. The next
   * answer is asked for only once the client can take more bytes.
   */
  private async loop(request: FastifyRequest, stream: Stream, next: StreamNext, since: number, first: Buffer): Promise<void> {
    let bytes = first;
    for (;;) {
      if (!stream.raw.write(bytes)) await this.drained(stream);
      if (!this.open.has(stream)) return;
      let answer: ChangeFeedView | undefined;
      try {
        answer = await next(since, this.keepAliveSeconds, stream.abort.signal);
      } catch (error) {
        if (!this.open.has(stream)) return;
        // A 404 here is a read link revoked or rotated meanwhile; anything else is the store's trouble.
        if ((error as { code?: unknown }).code !== "not-found") request.log.warn({ err: error }, "an event stream ended on an error");
        return this.end(stream);
      }
      if (!this.open.has(stream)) return;
      if (answer) since = answer.currentVersion;
      bytes = answer ? this.frame(answer) : KEEP_ALIVE;
    }
  }

  /** Settles once the stream can take more bytes, or once it ended; drops a client that reads nothing for too long. */
  private drained(stream: Stream): Promise<void> {
    return new Promise((resolve) => {
      const drained = () => {
        stream.raw.off("drain", drained);
        stream.drain?.cancel();
        stream.drain = undefined;
        stream.drained = undefined;
        resolve();
      };
      stream.drain = this.options.clock.timer(this.drainMs, () => this.end(stream, true));
      stream.drained = drained;
      stream.raw.once("drain", drained);
    });
  }

  /** Ends a stream: its wait in the hub, its timer, its bytes (`drop`: at once, unsent ones too). */
  private end(stream: Stream, drop = false): void {
    if (!this.open.delete(stream)) return;
    stream.abort.abort();
    // A loop held back by an unread client goes on, finds the stream ended and returns.
    stream.drained?.();
    stream.stopPresence?.();
    if (drop) stream.raw.destroy();
    else stream.raw.end();
  }

  private frame(answer: ChangeFeedView): Buffer {
    let frame = this.frames.get(answer);
    if (!frame) {
      frame = Buffer.from(`event: change\nid: ${answer.currentVersion}\ndata: ${changeFeedJson(answer)}\n\n`, "utf8");
      this.frames.set(answer, frame);
    }
    return frame;
  }
}
