import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { LineOperation } from "../../src/core/line-operation.js";
import type { ContentPatch } from "../../src/service/patch-content.js";
import { DOCUMENTS, checksum, createDocument, expectJson, expectProblem as expectProblemBody, type HistoryEntryJson } from "./http-expect.js";
import type { Config } from "../../src/config/config.js";
import type { TestApp } from "./test-app.js";

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
 * (the text after the patch); without it, any well-formed checksum (test/core/checksum.test.ts checks
 * how checksums are made, and the suites that pass `text` check the values the service answers).
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

/** The base text of the stale-patch suites (content-rebase, content-conflict): eight distinct lines, "l0" to "l7". */
export const BASE = Array.from({ length: 8 }, (_, k) => `l${k}`);
export const BASE_TEXT = BASE.join("\n");

/** The text of the lines given. */
export function text(...lines: string[]): string {
  return lines.join("\n");
}

/**
 * Patches of {@link BASE} sent after a foreign version, on the suite's app `t` (an appPerTest):
 * `afterForeign` makes the document and its version 2, `stale` sends a patch of version 1 by
 * client-s, `patchOf` any patch; each patch takes the next seq of the suite.
 */
export function stalePatches(t: Pick<TestApp, "app">) {
  let seq = 0;

  /** A patch against version `baseVersion` whose text is `baseText`, by `clientId`. */
  function patchOf(id: string, clientId: string, baseVersion: number, baseText: string, ops: WireOp[]) {
    seq += 1;
    return patchContent(t.app, id, { baseVersion, checksum: checksumOf(baseText), clientId, seq, ops });
  }

  /** A document at version 2: version 1 is BASE, version 2 is a foreign patch of it by client-f. */
  async function afterForeign(foreign: WireOp[]): Promise<string> {
    const id = (await createDocument(t.app, { title: "Notes", content: BASE_TEXT })).id;
    expectAccepted(await patchOf(id, "client-f", 1, BASE_TEXT, foreign), 2);
    return id;
  }

  /** A patch by client-s of BASE, which is version 1 and no longer current. */
  const stale = (id: string, ops: WireOp[]) => patchOf(id, "client-s", 1, BASE_TEXT, ops);

  return { patchOf, afterForeign, stale };
}

/** The text of the rules suites (content-rules-*.test.ts): three lines, "alpha" to "gamma". */
export const RULES_TEXT = "alpha\nbeta\ngamma";

/** A patch of {@link RULES_TEXT} at version 1 by client-a, seq 1, with `changes` on top. */
export function rulesBody(ops: WireOp[], changes: Partial<PatchBody> = {}): PatchBody {
  return { baseVersion: 1, checksum: checksumOf(RULES_TEXT), clientId: "client-a", seq: 1, ops, ...changes };
}

/** The {@link rulesBody} of one replace with one field replaced by anything (a wrong type) or left out (`undefined`). */
export function rulesBodyWith(field: string, value: unknown): Record<string, unknown> {
  const result: Record<string, unknown> = { ...rulesBody([replace(0, 1, "ALPHA")]) };
  if (value === undefined) delete result[field];
  else result[field] = value;
  return result;
}

/** The write pause and the retention period of the history suites (content-history*.test.ts), in ms. */
export const PAUSE_MS = 300_000;
export const RETENTION_MS = 86_400_000;

/** Sets {@link PAUSE_MS} and {@link RETENTION_MS} in a test app's configuration. */
export function historyTimes(config: Config): void {
  config.history.pauseSeconds = PAUSE_MS / 1000;
  config.history.retentionSeconds = RETENTION_MS / 1000;
}

/** One client editing one document through PATCH …/content, always against the version it last wrote. */
export class ContentEditor {
  seq = 0;

  constructor(
    readonly app: FastifyInstance,
    readonly id: string,
    public text: string,
    public version = 1,
    readonly clientId = "client-a",
  ) {}

  /** Creates a document titled "Notes" with `content` and its editor. */
  static async create(app: FastifyInstance, content: string): Promise<ContentEditor> {
    return new ContentEditor(app, (await createDocument(app, { title: "Notes", content: content })).id, content);
  }

  /** Replaces line `index` with `line`; asserts the 200 and returns the new version. */
  async setLine(index: number, line: string, milestone = false): Promise<number> {
    const lines = this.text.split("\n");
    lines[index] = line;
    await this.send([replace(index, 1, line)], milestone);
    this.text = lines.join("\n");
    return this.version;
  }

  async send(ops: WireOp[], milestone = false): Promise<void> {
    this.seq += 1;
    const response = await patchContent(this.app, this.id, {
      baseVersion: this.version,
      checksum: checksumOf(this.text),
      clientId: this.clientId,
      seq: this.seq,
      milestone,
      ops,
    });
    expectAccepted(response, this.version + 1);
    this.version += 1;
  }
}
