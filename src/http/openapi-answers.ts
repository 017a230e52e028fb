import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { EXAMPLE_DOCUMENT_PATH } from "../api/examples.js";
import { ProblemDetailSchema } from "../api/problem.js";
import { PROBLEM_TYPE_BASE, PROBLEMS, type RenderedCode } from "./problem-details.js";

/**
 * The answers of the route schemas, written once: helpers that give a route's response its
 * description and example, and the shared problem answers (components.responses of the OpenAPI
 * document) that routes name and that src/http/openapi.ts adds to every operation they apply to.
 * Each helper returns a Fastify response schema (content by media type), so the same object also
 * types the handler's reply and serializes it.
 */

export const JSON_MEDIA = "application/json";
export const PROBLEM_MEDIA = "application/problem+json";

/** Marks a route response that stands for `#/components/responses/<name>`; src/http/openapi.ts swaps it for that reference. */
export const SHARED_RESPONSE_MARK = "x-folio-response";

/** One example problem answer: its code, and the status when it is not the code's own (an upstream status passed on). */
export interface ProblemExample {
  code: RenderedCode;
  detail: string;
  status?: number;
  instance?: string;
  /** The key of the example in the media type's `examples` (default: the code). */
  key?: string;
}

function problemValue(example: ProblemExample) {
  const status = example.status ?? PROBLEMS[example.code].status;
  const { title } = PROBLEMS[example.code];
  return { type: PROBLEM_TYPE_BASE + example.code, title, status, detail: example.detail, instance: example.instance ?? EXAMPLE_DOCUMENT_PATH };
}

/** The `examples` of a problem media type: one per example, summarized by its problem type. */
export function problemExamples(list: readonly ProblemExample[]): Record<string, { summary: string; value: ReturnType<typeof problemValue> }> {
  return Object.fromEntries(list.map((example) => [example.key ?? example.code, { summary: PROBLEM_TYPE_BASE + example.code, value: problemValue(example) }]));
}

/** A problem answer of one route, with an example of each problem type it carries. */
export function problem(description: string, ...list: ProblemExample[]) {
  return { description, content: { [PROBLEM_MEDIA]: { schema: ProblemDetailSchema, examples: problemExamples(list) } } };
}

/** A JSON answer with its example (typed by the schema, so an example cannot drift from the shape). */
export function json<S extends TSchema>(description: string, schema: S, example: Static<S>) {
  return { description, content: { [JSON_MEDIA]: { schema, example } } };
}

/** An answer without a body (204). */
export function noContent(description: string) {
  return Type.Null({ description });
}

/** A request body schema with its example (the OpenAPI document shows it on the body's media type). */
export function withExample<S extends TSchema>(schema: S, example: Static<S>): S {
  return { ...schema, examples: [example] };
}

/** A problem answer shared by many operations: a component of the document, named in routes by {@link shared}. */
export interface SharedAnswer {
  status: string;
  description: string;
  problems: ProblemExample[];
  retryAfter?: string;
}

const TRACKER_PATH = "/api/v1/tracker/userstories/12";
const RETRY = "whole seconds after which a retry may succeed";

/** The shared answers, by component name. */
export const SHARED_ANSWERS = {
  InvalidRequest: {
    status: "400",
    description: "invalid request: a malformed path, query or header, a body that is not JSON or breaks its schema, or a request that is not valid HTTP",
    problems: [{ code: "invalid-request", detail: 'params.documentId: must match format "uuid"', instance: "/api/v1/documents/not-a-uuid" }],
  },
  DocumentNotFound: {
    status: "404",
    description: "no document has this id (a deleted document counts as none)",
    problems: [{ code: "not-found", detail: `no document ${EXAMPLE_DOCUMENT_PATH.slice(-36)}` }],
  },
  DocumentNeverExisted: {
    status: "404",
    description: "no document ever had this id (a deleted document still answers)",
    problems: [{ code: "not-found", detail: `no document ${EXAMPLE_DOCUMENT_PATH.slice(-36)}` }],
  },
  RequestTimeout: {
    status: "408",
    description: "the request did not arrive completely in time",
    problems: [{ code: "request-timeout", detail: "the request did not arrive in time" }],
  },
  ContentTooLarge: {
    status: "413",
    description: "the request body, a document's content or a patch's result is larger than the service accepts (service.documents.max-content-bytes)",
    problems: [{ code: "content-too-large", detail: "the request body is larger than the service accepts" }],
  },
  RateLimited: {
    status: "429",
    description:
      "this client address went past a rate limit (service.rate-limit.*: reads, writes, creates, long polls held at once): nothing was written; retry after `Retry-After` seconds",
    problems: [{ code: "rate-limited", detail: "more than 200 writes in a second from this address; retry in 1 s" }],
    retryAfter: RETRY,
  },
  PresenceTooMany: {
    status: "429",
    description:
      "this client sent more than 20 presence updates in a second (`rate-limited`), or the document holds service.presence.max-clients entries and this client is new (`presence-full`, `Retry-After` until the stalest entry expires), or the address went past a rate limit; nothing changed",
    problems: [
      { code: "rate-limited", detail: "more than 20 presence updates in a second from client c-4f9a1e07; retry in 1 s", instance: `${EXAMPLE_DOCUMENT_PATH}/presence/c-4f9a1e07` },
      { code: "presence-full", detail: "this document has 100 clients present, the most it holds; retry in 12 s", instance: `${EXAMPLE_DOCUMENT_PATH}/presence/c-4f9a1e07` },
    ],
    retryAfter: RETRY,
  },
  HeadersTooLarge: {
    status: "431",
    description: "the request headers are larger than the service accepts",
    problems: [{ code: "headers-too-large", detail: "the request headers are larger than the service accepts" }],
  },
  InternalError: {
    status: "500",
    description: "a fault of the service itself; it is logged, and the answer carries no internals",
    problems: [{ code: "internal", detail: "the service failed to answer; the error is logged" }],
  },
  Unavailable: {
    status: "503",
    description: "the database cannot serve now (`storage-unavailable`, `Retry-After: 5`) or this instance is shutting down (`shutting-down`, `Retry-After: 1`)",
    problems: [
      { code: "storage-unavailable", detail: "the database cannot serve now; retry shortly" },
      { code: "shutting-down", detail: "this instance is shutting down; retry" },
    ],
    retryAfter: RETRY,
  },
  ShuttingDown: {
    status: "503",
    description: "this instance is shutting down (`shutting-down`, `Retry-After: 1`): another instance, or this one restarted, answers",
    problems: [{ code: "shutting-down", detail: "this instance is shutting down; retry", instance: "/api/v1/info" }],
    retryAfter: RETRY,
  },
  TrackerBadRequest: {
    status: "400",
    description: "invalid request (a bad token header, body or parameter), or the tracker refused it with a 400 that is passed on (for a status write: the ticket changed since `version`)",
    problems: [
      { code: "invalid-request", detail: "the X-Tracker-Token header is longer than 512 characters", instance: TRACKER_PATH },
      { code: "tracker-rejected", status: 400, detail: "version: The version doesn't match with the current one", instance: `${TRACKER_PATH}/status` },
    ],
  },
  TrackerTokenRequired: {
    status: "401",
    description: "the `X-Tracker-Token` header is missing, or the tracker says the token is invalid or expired: log in again",
    problems: [{ code: "tracker-token-required", detail: "send the tracker token from POST /tracker/auth in the X-Tracker-Token header", instance: TRACKER_PATH }],
  },
  TrackerTooManyRequests: {
    status: "429",
    description: "too many writes from this client address (`rate-limited`), or the tracker's own 429 passed on (`tracker-rejected`, with its `Retry-After` when it sent one)",
    problems: [
      { code: "rate-limited", detail: "too many writes from this address; retry in 1 second", instance: TRACKER_PATH },
      { code: "tracker-rejected", status: 429, detail: "the tracker asks to wait before the next request", instance: TRACKER_PATH },
    ],
    retryAfter: RETRY,
  },
  TrackerRejected: {
    status: "4XX",
    description: "another refusal of the tracker, passed on with its status and its message as `detail`",
    problems: [{ code: "tracker-rejected", status: 403, detail: "You do not have permission to perform this action.", instance: TRACKER_PATH }],
  },
  TrackerUnavailable: {
    status: "502",
    description: "the tracker timed out, failed (5xx), was unreachable, or answered something unexpected",
    problems: [{ code: "tracker-unavailable", detail: "the tracker failed with status 500", instance: TRACKER_PATH }],
  },
  TrackerNotConfigured: {
    status: "503",
    description: "no tracker is configured (`tracker-not-configured`; GET /info says `tracker: false`), or this instance is shutting down (`shutting-down`, `Retry-After: 1`)",
    problems: [
      { code: "tracker-not-configured", detail: "no ticket tracker is configured on this service", instance: TRACKER_PATH },
      { code: "shutting-down", detail: "this instance is shutting down; retry", instance: TRACKER_PATH },
    ],
    retryAfter: RETRY,
  },
} satisfies Record<string, SharedAnswer>;

export type SharedAnswerName = keyof typeof SHARED_ANSWERS;

/** The route response that stands for a shared answer: a problem answer for Fastify, a `$ref` in the document. */
export function shared(name: SharedAnswerName) {
  const { description } = SHARED_ANSWERS[name];
  return { description, content: { [PROBLEM_MEDIA]: { schema: ProblemDetailSchema, [SHARED_RESPONSE_MARK]: name } } };
}
