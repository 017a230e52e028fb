import { Pool } from "undici";

/** A keep-alive connection pool to one origin: one connection per concurrent client, no pipelining. */
export function createPool(origin: string, connections: number): Pool {
  return new Pool(origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 120_000,
    keepAliveMaxTimeout: 120_000,
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
    connectTimeout: 30_000,
  });
}

export interface JsonAnswer<T = unknown> {
  status: number;
  body: T | undefined;
  /** Bytes of the response body. */
  bytes: number;
}

/** One request with an optional JSON body; the answer's body parsed as JSON when there is one. */
export async function requestJson<T = unknown>(
  pool: Pool,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<JsonAnswer<T>> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const response = await pool.request({
    method,
    path,
    headers: payload === undefined ? {} : { "content-type": "application/json" },
    body: payload,
    ...(signal ? { signal } : {}),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    body: text.length > 0 ? (JSON.parse(text) as T) : undefined,
    bytes: Buffer.byteLength(text),
  };
}

export const API = "/api/v1";

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts: an undici request aborted while
 * the server still works on it may otherwise settle only when the answer comes (or the pool is
 * destroyed), and a bounded wait must not depend on that.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
