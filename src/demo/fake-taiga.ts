import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeTaigaData } from "./fake-taiga-data.js";
import { authenticate, findRoute, type Answer } from "./fake-taiga-routes.js";

export type { FakeKind, FakeProject, FakeStatus, FakeTicket, FakeUser } from "./fake-taiga-data.js";
export type { Answer } from "./fake-taiga-routes.js";

/** One request as the fake received it. */
export interface RecordedRequest {
  method: string;
  /** The path without the query, e.g. `/api/v1/projects/by_slug`. */
  path: string;
  /** The raw query string without `?`, to check the encoding. */
  search: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The client's port: equal ports mean one kept-alive connection. */
  remotePort: number | undefined;
}

/** What the next responses do instead of answering normally: never answer, Taiga's 500, an HTML page, a 429, or a canned answer. */
export type Interference = "hang" | "server-error" | "html" | { throttleSeconds: number } | Answer;

export interface FakeTaigaOptions {
  /** The registered auth plugins, lower case (default `normal` and `ldap`). */
  loginTypes?: string[];
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Keep every request in {@link FakeTaiga.requests} (default true; a long-running demo turns it off). */
  record?: boolean;
  /** Called with every answer sent (the demo prints them). */
  onAnswer?: (method: string, path: string, status: number) => void;
}

const MAX_BODY = 1024 * 1024;
const HTML_404 =
  '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <title>Not Found</title>\n</head>\n<body>\n  <h1>Not Found</h1><p>The requested resource was not found on this server.</p>\n</body>\n</html>\n';

/**
 * A faithful fake of Taiga's REST API (docs/taiga.md) on 127.0.0.1: the allow-listed calls
 * with Taiga's bodies, error bodies, pagination, shared refs and optimistic locking. It records every
 * request, and tests can make the next responses hang, fail, turn to HTML or throttle. It listens on
 * loopback only: its users' passwords are plain text (`npm run demo-tracker`, src/demo/demo-tracker.ts).
 */
export class FakeTaiga extends FakeTaigaData {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #options: FakeTaigaOptions;
  readonly #loginTypes: string[];
  readonly #interferences: Interference[] = [];

  private constructor(server: Server, options: FakeTaigaOptions) {
    super();
    this.#server = server;
    this.#options = options;
    this.#loginTypes = options.loginTypes ?? ["normal", "ldap"];
  }

  /** Starts listening on 127.0.0.1; rejects when the port is taken. */
  static async start(options: FakeTaigaOptions = {}): Promise<FakeTaiga> {
    const server = createServer();
    const fake = new FakeTaiga(server, options);
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      fake.#handle(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    return fake;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/v1`;
  }

  /** The next `count` requests are answered with `interference` instead. */
  interfere(interference: Interference, count = 1): void {
    for (let i = 0; i < count; i += 1) this.#interferences.push(interference);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake-taiga");
    const text = await readBody(request);
    let body: unknown = text;
    let parseError: string | undefined;
    if (text !== "" && (request.headers["content-type"] ?? "").startsWith("application/json")) {
      try {
        body = JSON.parse(text);
      } catch (error) {
        parseError = (error as Error).message;
      }
    }
    const query = Object.fromEntries(url.searchParams);
    const { method = "", headers } = request;
    response.once("finish", () => this.#options.onAnswer?.(method, url.pathname, response.statusCode));
    if (this.#options.record !== false) this.requests.push({ method, path: url.pathname, search: url.search.slice(1), query, headers, body, remotePort: request.socket.remotePort });

    const interference = this.#interferences.shift();
    if (interference === "hang") return;
    if (interference === "server-error") return send(response, { status: 500, body: { error: "Server application error" } });
    if (interference === "html") return sendHtml(response, 200, "<html><body><h1>Maintenance</h1></body></html>");
    if (interference !== undefined && "status" in interference) return send(response, interference);
    if (interference !== undefined) {
      const wait = interference.throttleSeconds;
      const message = `Request was throttled.Expected available in ${wait} seconds.`;
      return send(response, { status: 429, body: { _error_message: message, _error_type: "taiga.base.exceptions.Throttled" }, headers: { "X-Throttle-Wait-Seconds": String(wait) } });
    }

    const route = url.pathname.replace(/^\/api\/v1\//, "");
    const handler = url.pathname.startsWith("/api/v1/") ? findRoute(this, this.#loginTypes, method, route) : undefined;
    if (handler === undefined) return sendHtml(response, 404, HTML_404);
    const auth = authenticate(this, request.headers.authorization);
    if ("status" in auth) return send(response, auth);
    if (parseError !== undefined) return send(response, { status: 400, body: { _error_message: `JSON parse error - ${parseError}`, _error_type: "taiga.base.exceptions.ParseError" } });
    send(response, handler({ viewer: auth.viewer, query, body, headers: request.headers, url }));
  }
}

function send(response: ServerResponse, answer: Answer): void {
  response.writeHead(answer.status, { "Content-Type": "application/json", Allow: "GET, POST, PATCH", ...answer.headers });
  response.end(JSON.stringify(answer.body));
}

function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
  response.end(html);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

