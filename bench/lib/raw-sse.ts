/**
 * A deliberately small Server-Sent Events reader for load generators that hold thousands of streams
 * in one process (bench/load/editor-pool.ts), the stream counterpart of bench/lib/raw-http.ts: one
 * TCP connection, one `GET` with `Accept: text/event-stream`, the answer's head parsed once, its body
 * de-chunked (Node.js sends a stream of unknown length with `transfer-encoding: chunked`) and cut into
 * frames at each blank line. Each frame is handed over as its event name, its `id` and its `data`
 * (a view valid only during the callback: copy it to keep it); comments (`: open`, `: keep-alive`)
 * are counted, not handed over. No reconnection: the owner reconnects (with its own `since`).
 */
import { connect, type Socket } from "node:net";
import type { RawConnection } from "./raw-http.js";

export interface SseHandlers {
  /** The answer's head arrived with a 200: the stream is open. */
  onOpen(): void;
  /** One frame: `event:` (default "message"), `id:` (-1 when absent or not a number), `data:` (lines joined by "\n"). */
  onEvent(event: string, id: number, data: Buffer): void;
  /** The connection failed or closed, or the answer was not a 200 (`status` then set). Called once. */
  onEnd(error: Error, status: number): void;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");
const FRAME_END = Buffer.from("\n\n");
const EMPTY = Buffer.alloc(0);
/** Every stream reads into this; the bytes are parsed or copied before the next read. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

export class RawEventStream {
  private socket: Socket | undefined;
  /** Bytes of the head, or of the chunked body, not yet parsed. */
  private raw: Buffer = EMPTY;
  /** De-chunked body bytes of an incomplete frame. */
  private text: Buffer = EMPTY;
  private headDone = false;
  private chunked = false;
  /** Bytes left of the current chunk's data (chunked only); -1 while at a chunk's size line. */
  private chunkLeft = -1;
  private ended = false;
  opened = false;
  comments = 0;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly handlers: SseHandlers,
  ) {}

  static forOrigin(origin: string, handlers: SseHandlers): RawEventStream {
    const url = new URL(origin);
    return new RawEventStream(url.hostname, Number(url.port), handlers);
  }

  /**
   * Opens the stream at `path` on `connection`'s open keep-alive socket (the one that opened the
   * document), or on a new one when it has none to hand over.
   */
  openOn(connection: RawConnection, path: string): void {
    const socket = connection.handOver(
      (bytes) => this.onRead(bytes),
      (error) => this.end(error, 0),
    );
    if (!socket) return this.open(path);
    this.socket = socket;
    socket.write(this.head(path));
  }

  private head(path: string): string {
    return `GET ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\naccept: text/event-stream\r\n\r\n`;
  }

  /** Opens the stream at `path` (e.g. `/api/v1/documents/<id>/events?since=3`) on a new connection. */
  open(path: string): void {
    const socket = connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (length: number, buffer: Uint8Array) => {
          this.onRead((buffer as Buffer).subarray(0, length));
          return true;
        },
      },
    });
    this.socket = socket;
    socket.on("error", (error) => this.end(error, 0));
    socket.on("close", () => this.end(new Error("connection closed"), 0));
    socket.write(this.head(path));
  }

  /** Closes the stream (onEnd is not called for it). */
  stop(): void {
    this.ended = true;
    this.socket?.destroy();
    this.socket = undefined;
  }

  private end(error: Error, status: number): void {
    if (this.ended) return;
    this.ended = true;
    this.socket?.destroy();
    this.socket = undefined;
    this.handlers.onEnd(error, status);
  }

  private onRead(bytes: Buffer): void {
    if (this.ended) return;
    if (!this.headDone) {
      const data = this.raw.length === 0 ? bytes : Buffer.concat([this.raw, bytes]);
      const end = data.indexOf(HEADER_END);
      if (end < 0) {
        this.raw = Buffer.from(data);
        return;
      }
      const head = data.toString("latin1", 0, end);
      const status = Number(head.slice(9, 12));
      if (status !== 200) return this.end(new Error(`status ${status}`), status);
      this.headDone = true;
      this.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
      this.opened = true;
      this.handlers.onOpen();
      this.raw = EMPTY;
      bytes = data.subarray(end + HEADER_END.length);
      if (bytes.length === 0) return;
      // The rest is owned by READ_BUFFER or by `data`: parsed below before the next read.
    }
    if (!this.chunked) return this.onBody(bytes);
    let data = this.raw.length === 0 ? bytes : Buffer.concat([this.raw, bytes]);
    this.raw = EMPTY;
    while (data.length > 0 && !this.ended) {
      if (this.chunkLeft < 0) {
        const lineEnd = data.indexOf(CRLF);
        if (lineEnd < 0) {
          this.raw = Buffer.from(data);
          return;
        }
        const size = parseInt(data.toString("latin1", 0, lineEnd), 16);
        if (!Number.isFinite(size)) return this.end(new Error("bad chunk size"), 0);
        if (size === 0) return this.end(new Error("stream ended by the server"), 0);
        // The chunk's data and its trailing CRLF.
        this.chunkLeft = size + 2;
        data = data.subarray(lineEnd + 2);
        continue;
      }
      const take = Math.min(this.chunkLeft, data.length);
      this.chunkLeft -= take;
      // The last two bytes of a chunk are its CRLF, not body.
      const bodyBytes = this.chunkLeft >= 2 ? take : take - (2 - this.chunkLeft);
      if (bodyBytes > 0) this.onBody(data.subarray(0, bodyBytes));
      data = data.subarray(take);
      if (this.chunkLeft === 0) this.chunkLeft = -1;
    }
  }

  private onBody(bytes: Buffer): void {
    let data = this.text.length === 0 ? bytes : Buffer.concat([this.text, bytes]);
    this.text = EMPTY;
    for (;;) {
      const end = data.indexOf(FRAME_END);
      if (end < 0) break;
      this.onFrame(data.subarray(0, end));
      if (this.ended) return;
      data = data.subarray(end + FRAME_END.length);
    }
    if (data.length > 0) this.text = Buffer.from(data);
  }

  private onFrame(frame: Buffer): void {
    if (frame[0] === 0x3a /* ":" */) {
      this.comments++;
      return;
    }
    let event = "message";
    let id = -1;
    let data: Buffer = EMPTY;
    let start = 0;
    while (start < frame.length) {
      let stop = frame.indexOf(0x0a, start);
      if (stop < 0) stop = frame.length;
      const line = frame.subarray(start, stop);
      if (line.length > 6 && line.toString("latin1", 0, 6) === "event:") event = line.toString("latin1", line[6] === 0x20 ? 7 : 6);
      else if (line.length > 3 && line.toString("latin1", 0, 3) === "id:") id = Number(line.toString("latin1", line[3] === 0x20 ? 4 : 3));
      else if (line.length >= 5 && line.toString("latin1", 0, 5) === "data:") {
        const value = line.subarray(line[5] === 0x20 ? 6 : 5);
        data = data.length === 0 ? value : Buffer.concat([data, Buffer.from("\n"), value]);
      }
      start = stop + 1;
    }
    this.handlers.onEvent(event, Number.isFinite(id) ? id : -1, data);
  }
}
