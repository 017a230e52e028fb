import type { IncomingHttpHeaders } from "node:http";
import { Pool, errors, type Dispatcher } from "undici";
import { ServiceError } from "../service/service-error.js";
import type { AnswerShape } from "./taiga-shapes.js";
import { rejectionOf, trackerUnavailable, type RejectionContext } from "./upstream-error.js";

/** Upstream bodies larger than this are not read: 502. */
export const MAX_UPSTREAM_BODY_BYTES = 8 * 1024 * 1024;

// The only upstream paths there are: fixed names, at most one numeric id. Anything else is a bug.
const ALLOWED_PATH = /^\/[a-z-]+(\/(by_slug|by_ref|[0-9]+))?$/;

/** One upstream call; the path is relative to the configured API base and never comes from a request. */
export interface TaigaCall<T> extends RejectionContext {
  method: "GET" | "POST" | "PATCH";
  path: string;
  query?: Record<string, string | number>;
  /** Sent as `Authorization: Bearer <token>`; absent on login. */
  token?: string;
  /** A list endpoint: ask for every row at once (`x-disable-pagination`). */
  list?: boolean;
  body?: object;
  shape: AnswerShape<T>;
  /** The deadline of the whole proxied operation. */
  signal: AbortSignal;
}

/**
 * Told of every upstream call: `operation` is the method and the path with its id as `:id` (a
 * bounded set), `outcome` the upstream status or `timeout` / `unreachable`.
 */
export type TrackerCallObserver = (operation: string, outcome: string, seconds: number) => void;

/**
 * Sends allow-listed calls to the one configured tracker over a keep-alive connection pool.
 * It never logs: headers and bodies carry tokens and passwords.
 */
export class TaigaTransport {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #timeoutMs: number;
  readonly #observe: TrackerCallObserver | undefined;

  constructor(apiUrl: string, timeoutMs: number, observe?: TrackerCallObserver) {
    this.#observe = observe;
    const base = new URL(apiUrl);
    if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error("the tracker api-url must be an http(s) URL");
    this.#basePath = base.pathname.replace(/\/+$/, "");
    this.#timeoutMs = timeoutMs;
    this.#pool = new Pool(base.origin, {
      connections: 32,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs },
    });
  }

  async send<T>(call: TaigaCall<T>): Promise<T> {
    if (!ALLOWED_PATH.test(call.path)) throw new Error(`not an allow-listed tracker path: ${call.path}`);
    // Query values only ever travel URL-encoded: a slug with `&`, `/` or `?` stays one value.
    const search = call.query ? `?${new URLSearchParams(Object.entries(call.query).map(([key, value]): [string, string] => [key, String(value)])).toString()}` : "";
    const headers: Record<string, string> = { accept: "application/json" };
    if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
    if (call.list) headers["x-disable-pagination"] = "True";
    if (call.body !== undefined) headers["content-type"] = "application/json";

    let status: number;
    let responseHeaders: IncomingHttpHeaders;
    let text: string;
    const started = performance.now();
    const observed = (outcome: string) =>
      this.#observe?.(`${call.method} ${call.path.replace(/\/[0-9]+$/, "/:id")}`, outcome, (performance.now() - started) / 1000);
    try {
      const response = await this.#pool.request({
        method: call.method,
        path: `${this.#basePath}${call.path}${search}`,
        headers,
        body: call.body === undefined ? null : JSON.stringify(call.body),
        signal: call.signal,
      });
      status = response.statusCode;
      responseHeaders = response.headers;
      text = await readBounded(response);
    } catch (error) {
      const failure = this.#failure(error, call.signal);
      observed(failure.message.includes("did not answer") ? "timeout" : "unreachable");
      throw failure;
    }
    observed(String(status));

    const body = parseJson(text);
    if (status < 200 || status > 299) throw rejectionOf({ status, headers: responseHeaders, body: body.ok ? body.value : undefined }, call);
    if (!body.ok) throw trackerUnavailable(`the tracker answered ${status} with a body that is not JSON`);
    if (!call.shape.check(body.value)) throw trackerUnavailable(`the tracker answered ${status} with a body that is not ${call.shape.describe}`);
    return body.value;
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  #failure(error: unknown, signal: AbortSignal): ServiceError {
    if (error instanceof ServiceError) return error;
    const timedOut =
      signal.aborted ||
      error instanceof errors.HeadersTimeoutError ||
      error instanceof errors.BodyTimeoutError ||
      error instanceof errors.ConnectTimeoutError;
    // The cause stays out of the detail: it is not the client's business, and it is never logged here.
    return trackerUnavailable(timedOut ? `the tracker did not answer within ${this.#timeoutMs} ms` : "the tracker could not be reached");
  }
}

/** Reads at most MAX_UPSTREAM_BODY_BYTES; the loop ends by the stream's end, the limit, or the deadline. */
async function readBounded(response: Dispatcher.ResponseData): Promise<string> {
  const { body } = response;
  const tooLarge = () => {
    body.destroy();
    return trackerUnavailable(`the tracker's answer is larger than ${MAX_UPSTREAM_BODY_BYTES} bytes`);
  };
  if (Number(response.headers["content-length"]) > MAX_UPSTREAM_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_UPSTREAM_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
