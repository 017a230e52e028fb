/**
 * A deliberately small HTTP/1.1 client for load generators that must simulate many clients on one
 * core: one keep-alive TCP connection, one request in flight, no streams, no AbortSignal. Reads go
 * through `onread` into one buffer shared by every connection of the process (no allocation and no
 * stream machinery per read); an answer's body is handed over as a view of that buffer, valid only
 * during the callback (copy it to keep it). It understands what the service and the baselines send
 * for JSON routes (a status line, headers with content-length, a body) and 204s; a chunked answer is
 * an error. undici costs several times more CPU per request (its body stream, the signal listeners),
 * which is what made a load generator for 1,000 authors the bound of its own measurement.
 */
import { connect, type Socket } from "node:net";

/** How an answer arrives: `error` set (connection failed or closed, or stopped), or status and body (valid during the call only). */
export type RawCallback = (error: Error | undefined, status: number, body: Buffer) => void;

const HEADER_END = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);
/** Every connection reads into this; the data is parsed (or copied) before the next read. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

export class RawConnection {
  private socket: Socket | undefined;
  private pending: RawCallback | undefined;
  /** Bytes of the current answer kept across reads (its head, or its body so far); empty when none. */
  private partial: Buffer = EMPTY;
  private status = 0;
  /** Body length of the current answer once its head is parsed; -1 before. */
  private bodyLength = -1;
  private stopped = false;
  /** Where reads, errors and the close go once the socket was handed over ({@link handOver}). */
  private handedTo: { read: (bytes: Buffer) => void; end: (error: Error) => void } | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** `http://<host>:<port>` of this connection. */
  get origin(): string {
    return `http://${this.host}:${this.port}`;
  }

  static forOrigin(origin: string): RawConnection {
    const url = new URL(origin);
    return new RawConnection(url.hostname, Number(url.port));
  }

  /** Sends one request and calls back with its answer (none may be in flight); `body` is JSON text or undefined. */
  request(method: string, path: string, body: string | undefined, callback: RawCallback): void {
    if (this.pending) throw new Error("a request is already in flight on this connection");
    if (this.stopped) {
      callback(new Error("stopped"), 0, EMPTY);
      return;
    }
    this.pending = callback;
    this.partial = EMPTY;
    this.bodyLength = -1;
    const head =
      body === undefined
        ? `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\n\r\n`
        : `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    (this.socket ?? this.open()).write(head);
  }

  /**
   * Hands this connection's open socket to another reader (an event stream on the connection that
   * opened the document, as a browser's EventSource reuses an idle keep-alive connection): from here
   * on every read goes to `read`, an error or the close to `end`, and this connection is stopped.
   * Undefined (nothing handed over) when no socket is open or a request is in flight.
   */
  handOver(read: (bytes: Buffer) => void, end: (error: Error) => void): Socket | undefined {
    const socket = this.socket;
    if (!socket || socket.destroyed || socket.connecting || this.pending) return undefined;
    this.handedTo = { read, end };
    this.socket = undefined;
    this.stopped = true;
    return socket;
  }

  /** Ends the connection; a request in flight fails with "stopped", later ones too. */
  stop(): void {
    this.stopped = true;
    this.socket?.destroy();
    this.fail(new Error("stopped"));
  }

  /** True once the TCP connection is established (and until it closes). */
  get connected(): boolean {
    return this.socket !== undefined && !this.socket.connecting;
  }

  private open(): Socket {
    const socket = connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (length: number, buffer: Uint8Array) => {
          if (this.handedTo) this.handedTo.read((buffer as Buffer).subarray(0, length));
          else this.onRead(buffer as Buffer, length);
          return true;
        },
      },
    });
    this.socket = socket;
    socket.on("error", (error) => (this.handedTo ? this.handedTo.end(error) : this.fail(error)));
    socket.on("close", () => {
      if (this.handedTo) return this.handedTo.end(new Error("connection closed"));
      if (this.socket === socket) this.socket = undefined;
      this.fail(new Error("connection closed"));
    });
    return socket;
  }

  private fail(error: Error): void {
    const callback = this.pending;
    if (!callback) return;
    this.pending = undefined;
    this.partial = EMPTY;
    this.socket?.destroy();
    this.socket = undefined;
    callback(error, 0, EMPTY);
  }

  private onRead(buffer: Buffer, length: number): void {
    // Bytes left from earlier reads come first (then this read is copied once); else the shared buffer is parsed in place.
    let data = this.partial.length === 0 ? buffer.subarray(0, length) : Buffer.concat([this.partial, buffer.subarray(0, length)]);
    if (this.bodyLength < 0) {
      const end = data.indexOf(HEADER_END);
      if (end < 0) {
        this.partial = Buffer.from(data);
        return;
      }
      const head = data.toString("latin1", 0, end);
      this.status = Number(head.slice(9, 12));
      const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (match) this.bodyLength = Number(match[1]);
      else if (this.status === 204 || this.status === 304) this.bodyLength = 0;
      else return this.fail(new Error(`answer without content-length (status ${this.status}): ${head.slice(0, 200)}`));
      data = data.subarray(end + HEADER_END.length);
    }
    if (data.length < this.bodyLength) {
      this.partial = Buffer.from(data);
      return;
    }
    const body = data.length === this.bodyLength ? data : data.subarray(0, this.bodyLength);
    const callback = this.pending;
    this.pending = undefined;
    this.partial = EMPTY;
    this.bodyLength = -1;
    callback?.(undefined, this.status, body);
  }
}

/** The non-negative integer right after `key` (e.g. `"currentVersion":`) in a JSON body, without parsing it; -1 when absent. */
export function integerAfter(body: Buffer, key: Buffer): number {
  const at = body.indexOf(key);
  if (at < 0) return -1;
  let value = 0;
  let i = at + key.length;
  for (; i < body.length; i++) {
    const digit = body[i]! - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return i === at + key.length ? -1 : value;
}

/** One request as a promise (for set-up steps, not for the hot path); the body is copied. */
export function rawRequest(connection: RawConnection, method: string, path: string, body?: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) =>
    connection.request(method, path, body, (error, status, answer) => (error ? reject(error) : resolve({ status, body: Buffer.from(answer) }))),
  );
}
