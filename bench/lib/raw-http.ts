/**
 * A deliberately small HTTP/1.1 client for load generators that must simulate many clients on one
 * core: one keep-alive TCP connection, one request in flight, no streams, no AbortSignal, answers
 * handed over as a Buffer. It understands what the service and the baselines send for JSON routes
 * (a status line, headers with content-length, a body) and 204s; a chunked answer is an error.
 * undici costs several times more CPU per request (its body stream, the signal listeners), which is
 * what made a load generator for 1,000 authors the bound of its own measurement.
 */
import { connect, type Socket } from "node:net";

/** How an answer arrives: `error` set (connection failed or closed, or stopped), or status and body. */
export type RawCallback = (error: Error | undefined, status: number, body: Buffer) => void;

const HEADER_END = Buffer.from("\r\n\r\n");
const EMPTY = Buffer.alloc(0);

export class RawConnection {
  private socket: Socket | undefined;
  private pending: RawCallback | undefined;
  /** Bytes read of the current answer (head not parsed yet), or its body so far. */
  private buffered: Buffer = EMPTY;
  private status = 0;
  /** Body length of the current answer once its head is parsed; -1 before. */
  private bodyLength = -1;
  private stopped = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

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
    this.buffered = EMPTY;
    this.bodyLength = -1;
    const head =
      body === undefined
        ? `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\n\r\n`
        : `${method} ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    (this.socket ?? this.open()).write(head);
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
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    this.socket = socket;
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("error", (error) => this.fail(error));
    socket.on("close", () => {
      if (this.socket === socket) this.socket = undefined;
      this.fail(new Error("connection closed"));
    });
    return socket;
  }

  private fail(error: Error): void {
    const callback = this.pending;
    if (!callback) return;
    this.pending = undefined;
    this.socket?.destroy();
    this.socket = undefined;
    callback(error, 0, EMPTY);
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    if (this.bodyLength < 0) {
      const end = this.buffered.indexOf(HEADER_END);
      if (end < 0) return;
      const head = this.buffered.toString("latin1", 0, end);
      this.status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (!length) {
        if (this.status === 204 || this.status === 304) this.bodyLength = 0;
        else return this.fail(new Error(`answer without content-length (status ${this.status}): ${head.slice(0, 200)}`));
      } else {
        this.bodyLength = Number(length[1]);
      }
      this.buffered = this.buffered.subarray(end + HEADER_END.length);
    }
    if (this.buffered.length < this.bodyLength) return;
    const body = this.buffered.length === this.bodyLength ? this.buffered : this.buffered.subarray(0, this.bodyLength);
    const callback = this.pending;
    this.pending = undefined;
    this.buffered = EMPTY;
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

/** One request as a promise (for set-up steps, not for the hot path). */
export function rawRequest(connection: RawConnection, method: string, path: string, body?: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) =>
    connection.request(method, path, body, (error, status, answer) => (error ? reject(error) : resolve({ status, body: answer }))),
  );
}
