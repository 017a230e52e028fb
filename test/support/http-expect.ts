import { createHash } from "node:crypto";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { Config } from "../../src/config/config.js";

export const JSON_TYPE = "application/json; charset=utf-8";
export const PROBLEM_TYPE = "application/problem+json; charset=utf-8";
export const BASIC_CHALLENGE = 'Basic realm="documents", charset="UTF-8"';

/** The default time of {@link ManualClock}, as the service renders it. */
export const T0 = "2026-01-05T10:00:00.000Z";
export const T0_MS = Date.parse(T0);

/** The ISO time `ms` milliseconds after {@link T0}. */
export function at(ms: number): string {
  return new Date(T0_MS + ms).toISOString();
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The documents collection's path: every document URL of the tests starts here. */
export const DOCUMENTS = "/api/v1/documents";

/** A well-formed UUID that no test creates. */
export const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

/** The content limit of the documents suites (documents-create, documents-get-put-delete): small, for a test to cross. */
export const SMALL_MAX_CONTENT_BYTES = 64;

/** Sets {@link SMALL_MAX_CONTENT_BYTES} as the content limit of a test app's configuration. */
export function smallMaxContent(config: Config): void {
  config.documents.maxContentBytes = SMALL_MAX_CONTENT_BYTES;
}

/** The problem body the service renders for one kind of problem. */
export interface ExpectedProblem {
  status: number;
  code: string;
  title: string;
  detail: string;
  instance: string;
}

/** Asserts status, content type and the exact RFC 9457 body of a problem answer. */
export function expectProblem(response: LightMyRequestResponse, expected: ExpectedProblem): void {
  expect({ status: response.statusCode, contentType: response.headers["content-type"], body: response.json<unknown>() }).toEqual({
    status: expected.status,
    contentType: PROBLEM_TYPE,
    body: {
      type: `urn:folio:problem:${expected.code}`,
      title: expected.title,
      status: expected.status,
      detail: expected.detail,
      instance: expected.instance,
    },
  });
}

/** Asserts a problem answer like {@link expectProblem}, and its `Retry-After` in whole seconds. */
export function expectProblemRetryAfter(response: LightMyRequestResponse, expected: ExpectedProblem, retryAfterSeconds: number): void {
  expect(response.headers["retry-after"]).toBe(String(retryAfterSeconds));
  expectProblem(response, expected);
}

/** Asserts a JSON answer: status, exact content type and exact body. */
export function expectJson(response: LightMyRequestResponse, status: number, body: unknown): void {
  expect({ status: response.statusCode, contentType: response.headers["content-type"], body: response.json<unknown>() }).toEqual({
    status,
    contentType: JSON_TYPE,
    body,
  });
}

/** Asserts that a GET of the document `expected.id` answers 200 with exactly `expected`. */
export async function expectDocument(app: FastifyInstance, expected: DocumentJson): Promise<void> {
  expectJson(await app.inject({ method: "GET", url: `${DOCUMENTS}/${expected.id}` }), 200, expected);
}

/** The problem of a body that fails the request schema. */
export function invalid(detail: string, instance: string): ExpectedProblem {
  return { status: 400, code: "invalid-request", title: "Invalid request", detail, instance };
}

/** The problem of content (or a request body) over the service's limit. */
export function contentTooLarge(detail: string, instance: string): ExpectedProblem {
  return { status: 413, code: "content-too-large", title: "Content too large", detail, instance };
}

/** The problem of an unknown or deleted document. */
export function notFound(id: string, instance: string): ExpectedProblem {
  return { status: 404, code: "not-found", title: "Not found", detail: `no document ${id}`, instance };
}

export interface DocumentJson {
  id: string;
  title: string;
  content: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface HistoryEntryJson {
  documentId: string;
  version: number;
  title: string;
  content: string;
  changeType: string;
  timestamp: string;
  clientId?: string;
  displayName?: string;
}

/** Creates a document through the API and returns its JSON (the id is random: capture it). */
export async function createDocument(app: FastifyInstance, body: { title: string; content: string }): Promise<DocumentJson> {
  const response = await app.inject({ method: "POST", url: "/api/v1/documents", payload: body });
  expect(response.statusCode).toBe(201);
  return response.json<DocumentJson>();
}

/** A history entry as GET …/history lists it; `sender` names the client of a patch's version. */
export function historyEntry(
  id: string,
  version: number,
  changeType: string,
  title: string,
  content: string,
  timestamp: string,
  sender?: { clientId: string; displayName: string },
): HistoryEntryJson {
  return { documentId: id, version, title, content, changeType, timestamp, ...sender };
}

/** Who sends the patches of {@link documentRequests}' `patchLine`, as the history names them. */
export const ANN = { clientId: "client-1", displayName: "Ann" };

/**
 * The requests of the history and restore suites (documents-history, documents-restore) on the
 * suite's app `t` (an appPerTest), each answer returned as it came.
 */
export function documentRequests(t: { readonly app: FastifyInstance }) {
  return {
    history: (id: string) => t.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/history` }),
    put: (id: string, title: string, content: string) => t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title, content } }),
    remove: (id: string) => t.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${id}` }),
    /** A content patch by {@link ANN}, a sync version unless `milestone`, that replaces line 0 of `base` with `line`. */
    patchLine: (id: string, baseVersion: number, base: string, seq: number, line: string, milestone = false) =>
      t.app.inject({
        method: "PATCH",
        url: `${DOCUMENTS}/${id}/content`,
        payload: { baseVersion, checksum: checksum(base), ...ANN, seq, milestone, ops: [{ op: "replace", index: 0, count: 1, lines: [line] }] },
      }),
  };
}

/** The `Authorization` value of HTTP Basic for `user` and `password`. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;
}

/** The checksum (docs/line-model.md#checksum) for a text with LF line endings. */
export function checksum(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}
