import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError, type ProblemCode } from "../service/service-error.js";
import { StorageUnavailableError } from "../storage/store.js";
import { PROBLEM_DETAIL_KEYWORD } from "../api/problem.js";

/** Error bodies have the shape of ProblemDetailSchema (src/api/problem.ts). */
export const PROBLEM_TYPE_BASE = "urn:folio:problem:";

/** The `Retry-After` of a 503 for an unavailable database: long enough for a reconnect or failover. */
const STORAGE_RETRY_SECONDS = 5;

export type RenderedCode =
  | ProblemCode
  | "route-not-found"
  | "request-timeout"
  | "headers-too-large"
  | "storage-unavailable"
  | "shutting-down"
  | "page-not-built"
  | "internal";

/** The one table of problem kinds: status and title per stable code (listed in docs/api.md). */
export const PROBLEMS: Record<RenderedCode, { status: number; title: string }> = {
  "invalid-request": { status: 400, title: "Invalid request" },
  "credentials-required": { status: 401, title: "Credentials missing or wrong" },
  "not-found": { status: 404, title: "Not found" },
  "route-not-found": { status: 404, title: "No such route" },
  "version-conflict": { status: 409, title: "Version conflict" },
  "document-exists": { status: 409, title: "Document exists" },
  "seq-reused": { status: 409, title: "Sequence number reused with a different body" },
  "request-timeout": { status: 408, title: "Request timeout" },
  "content-too-large": { status: 413, title: "Content too large" },
  "headers-too-large": { status: 431, title: "Request headers too large" },
  "checksum-mismatch": { status: 422, title: "Checksum mismatch" },
  "range-outside-text": { status: 422, title: "Range outside the text" },
  "base-unavailable": { status: 422, title: "Base version unavailable" },
  "rebase-too-large": { status: 422, title: "Too much to rebase over" },
  "list-locked": { status: 429, title: "Document list locked" },
  "list-busy": { status: 429, title: "Password checks busy" },
  "rate-limited": { status: 429, title: "Too many requests" },
  "presence-full": { status: 429, title: "Presence full" },
  "tracker-token-required": { status: 401, title: "Tracker token missing or expired" },
  "tracker-credentials-rejected": { status: 400, title: "Tracker credentials rejected" },
  "tracker-rejected": { status: 400, title: "Rejected by the tracker" },
  "tracker-unavailable": { status: 502, title: "Tracker unavailable" },
  "tracker-not-configured": { status: 503, title: "No tracker configured" },
  "storage-unavailable": { status: 503, title: "Storage unavailable" },
  "shutting-down": { status: 503, title: "Shutting down" },
  "page-not-built": { status: 503, title: "Editor page not built" },
  internal: { status: 500, title: "Internal error" },
};

/** The problem code each answer was sent with, for the request's log line. */
const sentProblems = new WeakMap<FastifyReply, RenderedCode>();

/** The problem code `reply` was answered with, when it was a problem. */
export function problemOf(reply: FastifyReply): string | undefined {
  return sentProblems.get(reply);
}

/** Sends a problem+json answer for `code`; `status` overrides the table (an upstream status passed on). */
export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: RenderedCode,
  detail: string,
  extra: { status?: number; retryAfterSeconds?: number } = {},
): FastifyReply {
  const entry = PROBLEMS[code];
  const status = extra.status ?? entry.status;
  if (extra.retryAfterSeconds !== undefined) void reply.header("Retry-After", String(extra.retryAfterSeconds));
  sentProblems.set(reply, code);
  return reply
    .code(status)
    .type("application/problem+json")
    .send({ type: PROBLEM_TYPE_BASE + code, title: entry.title, status, detail, instance: request.url.split("?")[0] ?? request.url });
}

function validationDetail(error: FastifyError): string {
  // A rule the service checks too names its own detail (src/api/problem.ts); the error that decided
  // is the last one (an anyOf reports its branches' errors before its own).
  const decisive = error.validation?.at(-1) as { keyword?: string; parentSchema?: Record<string, unknown> } | undefined;
  const named = decisive?.parentSchema?.[PROBLEM_DETAIL_KEYWORD] as Record<string, string> | undefined;
  const detail = decisive?.keyword === undefined ? undefined : named?.[decisive.keyword];
  if (detail !== undefined) return detail;
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = error.validationContext ?? "request";
  const path = first.instancePath ? first.instancePath.replace(/^\//, "").replace(/\//g, ".") : "";
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const field = [path, missing].filter(Boolean).join(".");
  return `${where}${field ? `.${field}` : ""}: ${first.message ?? "is invalid"}`;
}

/** The error handler of the app: every error leaves as problem+json; internals never leak on 5xx. */
export function renderError(error: FastifyError | ServiceError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ServiceError) return sendProblem(request, reply, error.code, error.message, error.extra);
  if (error instanceof StorageUnavailableError) {
    request.log.warn({ err: error }, "storage unavailable");
    return sendProblem(request, reply, "storage-unavailable", "the database cannot serve now; retry shortly", { retryAfterSeconds: STORAGE_RETRY_SECONDS });
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return sendProblem(request, reply, "invalid-request", validationDetail(fastifyError));
  switch (fastifyError.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return sendProblem(request, reply, "content-too-large", "the request body is larger than the service accepts");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      // docs/interface.md#errors: a body that is not JSON is a 400, whatever its media type claims.
      return sendProblem(request, reply, "invalid-request", "the body is not JSON; send it as application/json");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return sendProblem(request, reply, "invalid-request", "the body is empty; send a JSON object");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return sendProblem(request, reply, "invalid-request", "the Content-Length header does not match the body");
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    const code = status === 413 ? "content-too-large" : "invalid-request";
    const detail = error instanceof SyntaxError || /JSON/.test(error.message) ? `the body is not valid JSON: ${error.message}` : error.message;
    return sendProblem(request, reply, code, detail, { status: code === "invalid-request" ? 400 : status });
  }
  request.log.error({ err: error }, "request failed");
  return sendProblem(request, reply, "internal", "the service failed to answer; the error is logged");
}
