import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, type TestAppOptions } from "../support/test-app.js";
import { JSON_TYPE, expectJson } from "../support/http-expect.js";
import { PAGE_HEADERS } from "../../src/http/routes/web.js";

let t: TestApp | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function app(options: TestAppOptions = {}): Promise<TestApp> {
  t = await buildTestApp(options);
  return t;
}

describe("GET /info", () => {
  it("answers the service's name and version and no tracker by default", async () => {
    const { app: server } = await app({ identity: { name: "folio", version: "1.2.3" } });

    expectJson(await server.inject({ method: "GET", url: "/api/v1/info" }), 200, { name: "folio", version: "1.2.3", tracker: false });
  });

  it("reports builtAt when the identity has it", async () => {
    const { app: server } = await app({ identity: { name: "folio", version: "1.2.3", builtAt: "2026-01-02T03:04:05.000Z" } });

    expectJson(await server.inject({ method: "GET", url: "/api/v1/info" }), 200, {
      name: "folio",
      version: "1.2.3",
      builtAt: "2026-01-02T03:04:05.000Z",
      tracker: false,
    });
  });

  it("reports tracker true when a tracker API is configured", async () => {
    const { app: server } = await app({ config: (config) => (config.tracker.apiUrl = "https://tracker.example/api/v1") });

    expectJson(await server.inject({ method: "GET", url: "/api/v1/info" }), 200, { name: "folio", version: "0.1.0", tracker: true });
  });

  it("reports the tracker front end without its trailing slash", async () => {
    const { app: server } = await app({
      config: (config) => {
        config.tracker.apiUrl = "https://tracker.example/api/v1";
        config.tracker.webUrl = "https://tracker.example/";
      },
    });

    expectJson(await server.inject({ method: "GET", url: "/api/v1/info" }), 200, {
      name: "folio",
      version: "0.1.0",
      tracker: true,
      trackerWeb: "https://tracker.example",
    });
  });
});

interface Operation {
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  parameters?: { in: string; name: string; required?: boolean; schema: Record<string, unknown> }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: { required?: string[]; properties?: Record<string, unknown> } }> };
  security?: Record<string, unknown>[];
}

interface OpenApiDocument {
  openapi: string;
  security?: unknown[];
  info: { version: string };
  paths: Record<string, Record<string, Operation & { operationId?: string }>>;
  components: { securitySchemes: Record<string, Record<string, unknown>>; schemas: Record<string, Record<string, unknown>> };
}

/** The node with every local `$ref` (a schema, a response, a header) replaced by what it points at. */
function dereference(document: OpenApiDocument, node: unknown, depth = 0): unknown {
  if (depth > 20 || typeof node !== "object" || node === null) return node;
  if (Array.isArray(node)) return node.map((child) => dereference(document, child, depth + 1));
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string") {
    const target = ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], document);
    if (!target) throw new Error(`dangling $ref ${ref}`);
    return dereference(document, target, depth + 1);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, dereference(document, value, depth + 1)]));
}

async function openApi(): Promise<OpenApiDocument> {
  const { app: server } = await app();
  const response = await server.inject({ method: "GET", url: "/api/v1/openapi.json" });
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toBe(JSON_TYPE);
  return response.json<OpenApiDocument>();
}

const DOCUMENT = "/api/v1/documents/{documentId}";

/**
 * path + method → the statuses the interface lists, plus what every request may get (400 for a
 * request that is not valid HTTP, 408, 429: a rate limit, 431, 500 and 503) and every write (413).
 */
const ANY = ["400", "408", "429", "431", "500", "503"];
const WRITE = [...ANY, "413"];
const STATUSES: [string, string, string[]][] = [
  ["get", "/api/v1/documents", [...ANY, "200", "401"]],
  ["post", "/api/v1/documents", [...WRITE, "201"]],
  ["get", DOCUMENT, [...ANY, "200", "404"]],
  ["put", DOCUMENT, [...WRITE, "200", "404", "409"]],
  ["delete", DOCUMENT, [...WRITE, "204", "404"]],
  ["get", `${DOCUMENT}/history`, [...ANY, "200", "404"]],
  ["post", `${DOCUMENT}/restore`, [...WRITE, "200", "404", "409"]],
  ["patch", `${DOCUMENT}/title`, [...WRITE, "200", "404", "409"]],
  ["patch", `${DOCUMENT}/content`, [...WRITE, "200", "404", "409", "422"]],
  ["get", `${DOCUMENT}/changes`, [...ANY, "200", "204", "404"]],
  ["get", "/api/v1/info", [...ANY, "200"]],
];

function operation(document: OpenApiDocument, method: string, path: string): Operation {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`the OpenAPI document has no ${method.toUpperCase()} ${path}`);
  return dereference(document, found) as Operation;
}

describe("GET /api/v1/openapi.json", () => {
  it("is an OpenAPI 3.0 document of the interface version 0.1.0", async () => {
    const document = await openApi();

    expect(document.openapi).toMatch(/^3\.0\.\d+$/);
    expect(document.info.version).toBe("0.1.0");
  });

  it.each(STATUSES)("describes %s %s with exactly its statuses", async (method, path, statuses) => {
    const document = await openApi();

    expect(Object.keys(operation(document, method, path).responses).sort()).toEqual([...statuses].sort());
  });

  it("describes every error of the document routes as application/problem+json", async () => {
    const document = await openApi();

    const mediaTypes = STATUSES.filter(([, path]) => !path.endsWith("/content") && !path.endsWith("/changes")).flatMap(([method, path]) =>
      Object.entries(operation(document, method, path).responses)
        .filter(([status]) => Number(status) >= 400)
        .map(([status, response]) => [`${method} ${path} ${status}`, Object.keys(response.content ?? {})]),
    );
    expect(mediaTypes.length).toBeGreaterThan(10);
    expect(mediaTypes).toEqual(mediaTypes.map(([name]) => [name, ["application/problem+json"]]));
  });

  it("describes the errors of the change feed as application/problem+json", async () => {
    const responses = operation(await openApi(), "get", `${DOCUMENT}/changes`).responses;

    expect([Object.keys(responses["400"]?.content ?? {}), Object.keys(responses["404"]?.content ?? {})]).toEqual([
      ["application/problem+json"],
      ["application/problem+json"],
    ]);
  });

  it("describes the 204 of DELETE without a body", async () => {
    const document = await openApi();

    expect(operation(document, "delete", DOCUMENT).responses["204"]?.content).toBeUndefined();
  });

  it("describes the Retry-After header of the list's 429 and the challenge of its 401", async () => {
    const responses = operation(await openApi(), "get", "/api/v1/documents").responses;

    expect(Object.keys(responses["429"]?.headers ?? {})).toEqual(["Retry-After", "X-Request-Id"]);
    expect(Object.keys(responses["401"]?.headers ?? {})).toEqual(["WWW-Authenticate", "X-Request-Id"]);
  });

  it("describes documentId as a required UUID path parameter wherever the path has it", async () => {
    const document = await openApi();

    for (const [method, path] of STATUSES.filter(([, path]) => path.includes("{documentId}"))) {
      const inPath = (operation(document, method, path).parameters ?? []).filter((parameter) => parameter.in === "path");
      const parameters = inPath.map((parameter) => ({
        in: parameter.in,
        name: parameter.name,
        required: parameter.required,
        type: parameter.schema.type,
        format: parameter.schema.format,
      }));
      expect([method, path, parameters]).toEqual([method, path, [{ in: "path", name: "documentId", required: true, type: "string", format: "uuid" }]]);
    }
  });

  it("describes the query parameters of the change feed", async () => {
    const parameters = (operation(await openApi(), "get", `${DOCUMENT}/changes`).parameters ?? []).filter((parameter) => parameter.in === "query");

    expect(
      parameters.map((parameter) => ({
        name: parameter.name,
        required: parameter.required,
        type: parameter.schema.type,
        minimum: parameter.schema.minimum,
        default: parameter.schema.default,
      })),
    ).toEqual([
      { name: "since", required: true, type: "integer", minimum: 0, default: undefined },
      { name: "wait", required: false, type: "integer", minimum: 0, default: 25 },
    ]);
  });

  it.each([
    ["post", "/api/v1/documents", ["title", "content"], ["title", "content"]],
    ["put", DOCUMENT, ["title", "content"], ["title", "content", "expectedVersion"]],
    ["patch", `${DOCUMENT}/title`, ["title", "expectedVersion"], ["title", "expectedVersion"]],
  ])("describes the JSON request body of %s %s", async (method, path, required, properties) => {
    const body = operation(await openApi(), method, path).requestBody;

    const schema = body?.content["application/json"]?.schema;
    expect({ bodyRequired: body?.required, required: schema?.required, properties: Object.keys(schema?.properties ?? {}) }).toEqual({
      bodyRequired: true,
      required,
      properties,
    });
  });

  it("describes the restore body with its optional version", async () => {
    const body = operation(await openApi(), "post", `${DOCUMENT}/restore`).requestBody;

    expect(Object.keys(body?.content["application/json"]?.schema.properties ?? {})).toEqual(["version"]);
    expect(body?.content["application/json"]?.schema.required).toBeUndefined();
  });

  it("describes the restore body as optional (requestBody.required false)", async () => {
    const body = operation(await openApi(), "post", `${DOCUMENT}/restore`).requestBody;

    expect(body?.required).toBe(false);
  });

  it("protects the list with the master password and the tracker proxy with its token, and keeps bearerAuth, applied nowhere, outside securitySchemes", async () => {
    const document = await openApi();

    expect(document.security).toEqual([]);
    expect(document.components.securitySchemes.masterPassword).toEqual(expect.objectContaining({ type: "http", scheme: "basic" }));
    expect(document.components.securitySchemes.trackerToken).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "X-Tracker-Token" }));
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(["masterPassword", "trackerToken"]);
    const planned = (document.components as unknown as Record<string, Record<string, unknown>>)["x-planned-security-schemes"];
    expect(planned?.bearerAuth).toEqual(expect.objectContaining({ type: "http", scheme: "bearer", bearerFormat: "JWT" }));
    const secured = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, op]) => (op.security ?? []).length > 0)
        .map(([method, op]) => ({ name: `${method} ${path}`, security: op.security })),
    );
    expect(secured.filter(({ name }) => !name.includes("/tracker/"))).toEqual([{ name: "get /api/v1/documents", security: [{ masterPassword: [] }] }]);
    expect(secured.filter(({ name }) => name.includes("/tracker/")).map(({ security }) => security)).toEqual(Array(9).fill([{ trackerToken: [] }]));
  });
});

describe("GET /api/v1/docs", () => {
  it("answers 200 with the browsable HTML view, after at most a few redirects, with the page's security headers", async () => {
    const { app: server } = await app();

    let url = "/api/v1/docs";
    let response = await server.inject({ method: "GET", url });
    for (let hop = 0; hop < 3 && response.statusCode >= 300 && response.statusCode < 400; hop++) {
      url = new URL(String(response.headers.location), `http://localhost${url}`).pathname;
      response = await server.inject({ method: "GET", url });
    }

    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.body).toContain("<html");
    // The same security headers as the editor's page.
    const security = ["content-security-policy", "referrer-policy", "x-content-type-options", "cache-control"];
    expect(Object.fromEntries(security.map((name) => [name, response.headers[name]]))).toEqual(PAGE_HEADERS);
    const script = await server.inject({ method: "GET", url: "/api/v1/docs/static/swagger-initializer.js" });
    expect([script.statusCode, script.headers["content-security-policy"]]).toEqual([200, PAGE_HEADERS["content-security-policy"]]);
  });
});
