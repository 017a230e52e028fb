import { randomInt } from "node:crypto";
import type { AddressInfo } from "node:net";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";
import { hostileRequest, Random, sweepRequests, type Targets } from "../support/hostile-requests.js";
import { sendRaw, type RawRequest, type RawResponse } from "../support/raw-http.js";
import { buildTestApp, TEST_STORE_KIND, type TestApp } from "../support/test-app.js";
import { PROBLEM_TYPE, checksum, createDocument, invalid, UNKNOWN_ID, type ExpectedProblem } from "../support/http-expect.js";
import { insert, patchContent } from "../support/content-patch.js";
import { OpenApiConformance, type OpenApiDocument } from "../support/openapi-conformance.js";
import { documentBodyBytes } from "../../src/http/json-bodies.js";

// The service's own hostile-input suite, on the store of the vitest project (SQLite or
// PostgreSQL): several hundred malformed requests over every endpoint, as raw bytes over loopback
// HTTP (invalid UTF-8 and odd framing reach the server as sent). Whatever arrives: no 5xx (502
// only from the tracker proxy), every error problem+json (the content patch's ContentConflict
// aside), each answer one the OpenAPI document gives for its operation (status, media type, body),
// and the bystander documents and their history unchanged to the byte. Seeded: a failure
// prints the seed, FOLIO_SEED=<seed> replays it.

/** Random requests, after the systematic sweep (about 500 more). */
const REQUESTS = 400;
const CONCURRENCY = 8;
const REQUEST_TIMEOUT_MS = 10_000;
const SEED = process.env.FOLIO_SEED ? Number(process.env.FOLIO_SEED) : randomInt(2 ** 31);
const PROBLEM_KEYS = ["detail", "instance", "status", "title", "type"];

let t: TestApp;
let fake: FakeTaiga;
let port: number;
let targets: Targets;
let conformance: OpenApiConformance;

/** What the service answers about a bystander, byte for byte: the document, its history, its feed and its stored versions. */
async function snapshot(id: string): Promise<string[]> {
  const urls = [`/api/v1/documents/${id}`, `/api/v1/documents/${id}/history`, `/api/v1/documents/${id}/changes?since=0&wait=0`];
  const bodies = await Promise.all(urls.map(async (url) => (await t.app.inject({ method: "GET", url })).body));
  return [...bodies, JSON.stringify(await t.store.reads(id).versions(0, Number.MAX_SAFE_INTEGER))];
}

beforeAll(async () => {
  fake = await FakeTaiga.start();
  const hash = bcrypt.hashSync("the right one", 4);
  t = await buildTestApp({
    config: (config) => {
      config.masterPassword.hash = hash;
      config.cors.origins = ["https://editor.example"];
      config.tracker.apiUrl = fake.apiUrl;
      config.tracker.timeoutMs = 2000;
      config.documents.maxContentBytes = 16_384;
    },
  });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  conformance = new OpenApiConformance((await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json<OpenApiDocument>());
  port = (t.app.server.address() as AddressInfo).port;

  const bystanders: string[] = [];
  for (const title of ["Bystander one", "Bystander two"]) {
    const { id } = await createDocument(t.app, { title, content: "alpha\nbeta\ngamma" });
    const patched = await patchContent(t.app, id, { baseVersion: 1, checksum: checksum("alpha\nbeta\ngamma"), clientId: "by", seq: 1, ops: [insert(1, "inserted")] });
    expect(patched.statusCode).toBe(200);
    const renamed = await t.app.inject({ method: "PATCH", url: `/api/v1/documents/${id}/title`, payload: { title: `${title}, renamed`, expectedVersion: 2 } });
    expect(renamed.statusCode).toBe(200);
    bystanders.push(id);
  }
  const victim = await createDocument(t.app, { title: "Victim", content: "v" });
  targets = { victim: victim.id, bystanders, unknown: UNKNOWN_ID, maxBodyBytes: documentBodyBytes({ maxContentBytes: 16_384 }) };
});

afterAll(async () => {
  await t?.close();
  await fake?.close();
});

/** Why `response` breaks the rules, or undefined. */
function fault(request: RawRequest, response: RawResponse): string | undefined {
  const path = request.target.split("?")[0] ?? "";
  if (response.status >= 500 && !(response.status === 502 && path.startsWith("/api/v1/tracker/"))) return `status ${response.status}`;
  const undocumented = conformance.fault({
    method: request.method,
    target: request.target,
    status: response.status,
    contentType: response.headers["content-type"],
    body: response.body.toString("utf8"),
  });
  if (undocumented) return `not as documented: ${undocumented}`;
  if (response.status < 400) return undefined;
  const type = response.headers["content-type"];
  if (response.status === 409 && request.method === "PATCH" && path.endsWith("/content") && type === "application/json; charset=utf-8") return undefined;
  if (type !== "application/problem+json; charset=utf-8") return `status ${response.status} with content type ${type}`;
  if (request.method === "HEAD") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString("utf8"));
  } catch {
    return `status ${response.status}: the problem body is not JSON`;
  }
  const problem = body as Record<string, unknown>;
  if (Object.keys(problem).sort().join() !== PROBLEM_KEYS.join()) return `problem keys ${Object.keys(problem).join()}`;
  if (problem.status !== response.status || typeof problem.type !== "string" || !problem.type.startsWith("urn:folio:problem:")) return `problem ${JSON.stringify(problem)}`;
  return undefined;
}

/** Asserts a raw answer's status, content type and exact problem body, as expectProblem does for an injected one. */
function expectRawProblem(response: RawResponse, expected: ExpectedProblem): void {
  expect({ status: response.status, type: response.headers["content-type"], body: JSON.parse(response.body.toString()) as unknown }).toEqual({
    status: expected.status,
    type: PROBLEM_TYPE,
    body: { type: `urn:folio:problem:${expected.code}`, title: expected.title, status: expected.status, detail: expected.detail, instance: expected.instance },
  });
}

function describeRequest(request: RawRequest): string {
  const headers = request.headers.map(([name, value]) => `${name}: ${typeof value === "string" ? value.slice(0, 60) : `<bytes ${value.toString("hex")}>`}`);
  const body = request.body === undefined ? "" : ` body ${request.body.length} bytes: ${JSON.stringify(request.body.subarray(0, 80).toString("latin1"))}`;
  return `${request.method} ${request.target.slice(0, 120)} [${headers.join("; ")}]${body}`;
}

describe(`hostile input (${TEST_STORE_KIND})`, () => {
  it(`answers several hundred malformed requests with 4xx problems, never a 5xx, and leaves bystanders untouched`, async () => {
    const before = await Promise.all(targets.bystanders.map(snapshot));
    const random = new Random(SEED);
    const requests = [...sweepRequests(targets), ...Array.from({ length: REQUESTS }, () => hostileRequest(random, targets))];
    const faults: string[] = [];
    const kinds = new Map<string, number>();

    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const { kind, request } = requests[next++] as (typeof requests)[number];
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        try {
          const response = await sendRaw(port, request, REQUEST_TIMEOUT_MS);
          const found = fault(request, response);
          if (found) faults.push(`${found}: ${describeRequest(request)} → ${response.body.subarray(0, 200).toString("utf8")}`);
        } catch (error) {
          faults.push(`${(error as Error).message}: ${describeRequest(request)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const report = `hostile-input seed ${SEED} (replay with FOLIO_SEED=${SEED}); ${faults.length} faults in ${requests.length} requests`;
    expect(faults.slice(0, 20), report).toEqual([]);
    // Every kind of oddity was sent (the suite cannot quietly shrink to one kind).
    expect([...kinds.keys()].sort(), report).toEqual(["bytes", "field", "headers", "method", "oversize", "plain", "preflight", "type"]);
    expect(await Promise.all(targets.bystanders.map(snapshot)), report).toEqual(before);
  });
});

/** Every object in the OpenAPI document. */
function nodes(node: unknown, found: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(node)) node.forEach((child) => nodes(child, found));
  else if (node !== null && typeof node === "object") {
    found.push(node as Record<string, unknown>);
    Object.values(node).forEach((child) => nodes(child, found));
  }
  return found;
}

/** Every schema node of the OpenAPI document whose type is integer, with where it sits. */
function integers(node: unknown, where: string, found: { where: string; schema: Record<string, unknown> }[] = []): typeof found {
  if (Array.isArray(node)) node.forEach((child, index) => integers(child, `${where}[${index}]`, found));
  else if (node !== null && typeof node === "object") {
    const schema = node as Record<string, unknown>;
    if (schema.type === "integer") found.push({ where, schema });
    for (const [key, child] of Object.entries(schema)) integers(child, `${where}.${key}`, found);
  }
  return found;
}

describe("the bounds of the interface", () => {
  it("are stated in the OpenAPI document: every integer has a minimum and a maximum, every document id is a uuid", async () => {
    const document = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json<Record<string, unknown>>();
    const unbounded = integers(document, "$").filter(({ schema }) => typeof schema.minimum !== "number" || typeof schema.maximum !== "number");
    expect(unbounded.map(({ where }) => where).slice(0, 200)).toEqual([]);
    const ints = integers(document, "$").map(({ schema }) => schema);
    expect(ints.filter((schema) => schema.format === "int64").every((schema) => schema.maximum === Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(ints.filter((schema) => schema.format === "int32").every((schema) => schema.maximum === 2 ** 31 - 1)).toBe(true);

    // A document id is `format: uuid`, which OpenAPI reads as the canonical form: the service's validator holds it to exactly that.
    const ids = nodes(document).filter((node) => node.in === "path" && node.name === "documentId");
    expect(ids.length).toBeGreaterThan(5);
    expect(ids.filter((node) => (node.schema as { format?: string }).format !== "uuid")).toEqual([]);
  });

  it("answers an OPTIONS request that is no preflight, and a request Node cannot parse, with exact problems", async () => {
    const options = await sendRaw(port, { method: "OPTIONS", target: "/api/v1/info", headers: [] }, REQUEST_TIMEOUT_MS);
    expectRawProblem(options, invalid("OPTIONS is only a CORS preflight: it needs Origin and Access-Control-Request-Method", "/api/v1/info"));

    const unparsable = await sendRaw(port, { method: "GET", target: "/api/v1/info?x=1", headers: [["Content-Length", "abc"]] }, REQUEST_TIMEOUT_MS);
    expectRawProblem(unparsable, invalid("the request is not valid HTTP (HPE_INVALID_CONTENT_LENGTH)", "/api/v1/info"));
  });
});
