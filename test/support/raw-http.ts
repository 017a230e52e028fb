import { connect } from "node:net";

/** A request as bytes on the wire: nothing is normalized, so invalid UTF-8 and odd framing reach the server as they are. */
export interface RawRequest {
  method: string;
  /** The request target exactly as sent (already percent-encoded where it should be, or not). */
  target: string;
  headers: [string, string | Buffer][];
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

/** Serializes `request` with `Connection: close` and `Content-Length` (unless it sets its own). */
export function encodeRequest(request: RawRequest, host: string): Buffer {
  const head: Buffer[] = [Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n`, "latin1")];
  const names = request.headers.map(([name]) => name.toLowerCase());
  for (const [name, value] of request.headers) head.push(Buffer.concat([Buffer.from(`${name}: `, "latin1"), Buffer.from(value), Buffer.from("\r\n")]));
  if (request.body !== undefined && !names.includes("content-length") && !names.includes("transfer-encoding")) {
    head.push(Buffer.from(`Content-Length: ${request.body.length}\r\n`));
  }
  head.push(Buffer.from("\r\n"));
  return Buffer.concat([...head, request.body ?? Buffer.alloc(0)]);
}

/** Sends one request on a fresh connection (`Connection: close`) and reads the answer until the server closes it; rejects after `timeoutMs`. */
export function sendRaw(port: number, request: RawRequest, timeoutMs: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once("close", () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks), request.method === "HEAD"));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    // No half-close: Node's server aborts a request whose client ended its side before the answer.
    socket.write(encodeRequest(request, `127.0.0.1:${port}`));
  });
}

/** Parses one HTTP/1.1 answer (Content-Length, chunked, or up to the close). */
export function parseResponse(bytes: Buffer, head: boolean): RawResponse {
  // An interim answer (100 Continue) comes before the real one.
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(0, 13).toString("latin1"))) bytes = bytes.subarray(bytes.indexOf("\r\n\r\n") + 4);
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no complete answer head: ${JSON.stringify(bytes.toString("latin1").slice(0, 200))}`);
  const [statusLine = "", ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = bytes.subarray(end + 4);
  if (head) body = Buffer.alloc(0);
  else if (headers["transfer-encoding"]?.includes("chunked")) body = dechunk(body);
  else if (headers["content-length"] !== undefined) body = body.subarray(0, Number(headers["content-length"]));
  return { status: Number(match[1]), headers, body };
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd < 0) throw new Error("truncated chunked body");
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size)) throw new Error("bad chunk size");
    if (size === 0) return Buffer.concat(parts);
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
