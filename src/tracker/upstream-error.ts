import type { IncomingHttpHeaders } from "node:http";
import { ServiceError } from "../service/service-error.js";

/** A non-2xx answer of the tracker; `body` is the parsed JSON, undefined when it was none. */
export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** How one call's rejection is read. */
export interface RejectionContext {
  /** The login call: a 400 or 401 there means the credentials were rejected. */
  login?: boolean;
  /** Strings the detail must never carry (the token, the password); a detail containing one is replaced. */
  secrets: readonly string[];
  /** The detail of a 404 whose body says nothing (Taiga's `{"_error_message": ""}`). */
  notFound?: string;
}

const MAX_DETAIL = 1000;
const MAX_DEPTH = 3;
const MAX_RETRY_AFTER = 86_400;

export function trackerUnavailable(detail: string): ServiceError {
  return new ServiceError("tracker-unavailable", detail);
}

/**
 * Maps a tracker answer outside 2xx to the problem the proxy reports:
 * 5xx → 502; on login 400/401 → 400 credentials rejected; 401 → 401; 429 → 429 with the wait;
 * any other 4xx → the same status; anything else (1xx, 3xx) → 502.
 */
export function rejectionOf(answer: UpstreamAnswer, context: RejectionContext): ServiceError {
  const { status } = answer;
  if (status >= 500) return trackerUnavailable(`the tracker failed with status ${status}`);
  if (status < 400) return trackerUnavailable(`the tracker answered with the unexpected status ${status}`);
  const message = safeMessage(upstreamMessage(answer.body), context.secrets);
  if (context.login && (status === 400 || status === 401)) {
    return new ServiceError("tracker-credentials-rejected", `the tracker rejected the login${message ? `: ${message}` : ""}`);
  }
  if (status === 401) return new ServiceError("tracker-token-required", message ?? "the tracker token is missing, invalid or expired");
  if (status === 429) {
    const retryAfterSeconds = retryAfterOf(answer.headers);
    const detail = message ?? "the tracker asks to wait before the next request";
    return new ServiceError("tracker-rejected", detail, retryAfterSeconds === undefined ? { status } : { status, retryAfterSeconds });
  }
  const fallback = status === 404 && context.notFound ? context.notFound : `the tracker rejected the request with status ${status}`;
  return new ServiceError("tracker-rejected", message ?? fallback, { status });
}

/**
 * The message in a Taiga error body, whichever form it has: `_error_message`, `detail`,
 * `error_message` (a text or, from the LDAP plugin, a dict), a field-keyed dict
 * (`{"subject": ["This field is required."]}` → `subject: This field is required.`; several fields
 * joined with `; `; `non_field_errors` without its key), or a bare JSON string.
 */
export function upstreamMessage(body: unknown): string | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return flatten(body, 0);
  const record = body as Record<string, unknown>;
  for (const key of ["_error_message", "detail", "error_message"]) {
    const text = flatten(record[key], 0);
    if (text) return text;
  }
  return flatten(Object.fromEntries(Object.entries(record).filter(([key]) => !key.startsWith("_"))), 0);
}

function flatten(value: unknown, depth: number): string | undefined {
  if (typeof value === "string") return value.trim() || undefined;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return joined(value.map((item) => flatten(item, depth + 1)), " ");
  const parts = Object.entries(value as Record<string, unknown>).map(([key, item]) => {
    const text = flatten(item, depth + 1);
    return text && key !== "non_field_errors" ? `${key}: ${text}` : text;
  });
  return joined(parts, "; ");
}

function joined(parts: (string | undefined)[], separator: string): string | undefined {
  const present = parts.filter((part): part is string => part !== undefined);
  return present.length > 0 ? present.join(separator) : undefined;
}

/** Bounded in length; dropped entirely when it carries a secret, so a detail can never leak one. */
function safeMessage(message: string | undefined, secrets: readonly string[]): string | undefined {
  if (message === undefined) return undefined;
  if (secrets.some((secret) => secret !== "" && message.includes(secret))) return undefined;
  return message.length > MAX_DETAIL ? `${message.slice(0, MAX_DETAIL)}…` : message;
}

/** Taiga's `X-Throttle-Wait-Seconds`, else a numeric `Retry-After`; whole seconds, rounded up. */
function retryAfterOf(headers: IncomingHttpHeaders): number | undefined {
  for (const name of ["x-throttle-wait-seconds", "retry-after"]) {
    const raw = headers[name];
    const text = Array.isArray(raw) ? raw[0] : raw;
    if (text !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(text)) return Math.min(Math.ceil(Number(text)), MAX_RETRY_AFTER);
  }
  return undefined;
}
