import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { LineOperation } from "../../src/core/line-operation.js";
import type { ContentPatch } from "../../src/service/patch-content.js";
import { DOCUMENTS, checksum, expectJson, expectProblem as expectProblemBody, type HistoryEntryJson } from "./http-expect.js";

/*
 * Helpers of the PATCH …/content suites (test/http/content-*.test.ts): request bodies, the exact
 * answers the interface prescribes, and the few reads the assertions need. The general ones
 * (content types, times, the checksum) come from http-expect.ts.
 */

export { DOCUMENTS };

/** One line operation as the wire carries it. */
export type WireOp = LineOperation;

/** A ContentPatchRequest. */
export type PatchBody = ContentPatch;

export type { HistoryEntryJson };

/** `sha256:` and the hex SHA-256 of the UTF-8 bytes of the text exactly as given (no line-ending change). */
export const checksumOf = checksum;

export const replace = (index: number, count: number, ...lines: string[]): WireOp => ({ op: "replace", index, count, lines });
export const insert = (index: number, ...lines: string[]): WireOp => ({ op: "insert", index, lines });
export const remove = (index: number, count: number): WireOp => ({ op: "delete", index, count });

export const contentUrl = (id: string) => `${DOCUMENTS}/${id}/content`;

/** Sends a content patch (any JSON body, so that invalid ones can be sent too). */
export function patchContent(app: FastifyInstance, id: string, body: unknown): Promise<LightMyRequestResponse> {
  return app.inject({ method: "PATCH", url: contentUrl(id), payload: body as object });
}

/** The document as GET returns it (asserting 200). */
export async function readDocument(app: FastifyInstance, id: string): Promise<{ content: string; version: number; title: string }> {
  const response = await app.inject({ method: "GET", url: `${DOCUMENTS}/${id}` });
  expect(response.statusCode).toBe(200);
  return response.json();
}

/** GET …/history (asserting 200). */
export async function readHistory(app: FastifyInstance, id: string): Promise<HistoryEntryJson[]> {
  const response = await app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/history` });
  expect(response.statusCode).toBe(200);
  return response.json();
}

/** Any `sha256:<hex>` checksum, for answers whose text a test does not spell out. */
export const ANY_CHECKSUM = expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown as string;

/**
 * A 200 ContentPatchResult. With `text`, its `checksum` must be exactly the checksum of that text
 * (the text after the patch); without it, any well-formed checksum (test/http/content-checksum.test.ts
 * checks the values).
 */
export function expectAccepted(response: LightMyRequestResponse, version: number, opsSinceBase: WireOp[] = [], text?: string): void {
  expectJson(response, 200, { version, opsSinceBase, checksum: text === undefined ? ANY_CHECKSUM : checksumOf(text) });
}

/** A 409 ContentConflict (application/json, not a problem). */
export function expectConflict(response: LightMyRequestResponse, currentVersion: number, opsSinceBase: WireOp[]): void {
  expectJson(response, 409, { currentVersion, opsSinceBase });
}

/** The problem kinds a content patch can answer with: status, `type` suffix and title (problem-details.ts). */
export const PROBLEMS = {
  "invalid-request": { status: 400, title: "Invalid request" },
  "not-found": { status: 404, title: "Not found" },
  "seq-reused": { status: 409, title: "Sequence number reused with a different body" },
  "content-too-large": { status: 413, title: "Content too large" },
  "checksum-mismatch": { status: 422, title: "Checksum mismatch" },
  "range-outside-text": { status: 422, title: "Range outside the text" },
  "base-unavailable": { status: 422, title: "Base version unavailable" },
} as const;

/** An RFC 9457 problem answer with its exact body; `instance` is the request path. */
export function expectProblem(response: LightMyRequestResponse, code: keyof typeof PROBLEMS, instance: string, detail: string): void {
  expectProblemBody(response, { ...PROBLEMS[code], code, detail, instance });
}

/**
 * Applies wire ops (sorted, not overlapping, against `lines`) the way a client does with the
 * `opsSinceBase` of an answer. Written apart from src/core on purpose: the tests check the service
 * against their own reading of docs/line-model.md#line-operations.
 */
export function applyWireOps(lines: readonly string[], ops: readonly WireOp[]): string[] {
  const out: string[] = [];
  let cursor = 0;
  for (const op of ops) {
    const count = op.op === "insert" ? 0 : (op.count ?? 0);
    if (op.index < cursor || op.index + count > lines.length) throw new Error(`op ${JSON.stringify(op)} does not fit ${lines.length} lines at ${cursor}`);
    out.push(...lines.slice(cursor, op.index), ...(op.op === "delete" ? [] : (op.lines ?? [])));
    cursor = op.index + count;
  }
  out.push(...lines.slice(cursor));
  return out;
}
