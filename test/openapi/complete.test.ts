import { Type } from "@sinclair/typebox";
import { beforeAll, describe, expect, it } from "vitest";
import { compose } from "../../src/composition.js";
import { buildApp } from "../../src/http/app.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { ManualClock } from "../support/manual-clock.js";
import { testConfig } from "../support/test-app.js";
import { servedOpenApi } from "./served-document.js";

// What every operation of the served document must say, whoever adds the route: a summary and a
// description, an example for every body it takes or answers, the answers every request may get
// (and every write), meaningful response descriptions and the headers the answers carry. A route
// that leaves something out fails here by name.

type Json = Record<string, unknown>;
interface Document {
  security?: unknown[];
  paths: Record<string, Record<string, Json>>;
  components: { responses: Record<string, Json>; headers: Record<string, Json>; securitySchemes: Record<string, Json> };
}
interface Operation {
  name: string;
  method: string;
  path: string;
  operation: Json;
}
type Check = (document: Document, operation: Json, method: string, path: string) => string | undefined;

const WRITES = new Set(["post", "put", "patch", "delete"]);

function operationsOf(document: Document): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, method, path, operation })),
  );
}

/** A response with its `$ref` followed. */
function resolved(document: Document, response: Json): Json {
  const ref = response.$ref;
  if (typeof ref !== "string") return response;
  const target = document.components.responses[ref.replace("#/components/responses/", "")];
  if (!target) throw new Error(`dangling ${ref}`);
  return target;
}

function responsesOf(document: Document, operation: Json): [string, Json][] {
  return Object.entries(operation.responses as Record<string, Json>).map(([status, response]) => [status, resolved(document, response)]);
}

function mediaTypes(document: Document, operation: Json): [string, Json][] {
  const body = operation.requestBody as { content?: Record<string, Json> } | undefined;
  const requests = Object.entries(body?.content ?? {}).map(([media, value]): [string, Json] => [`request ${media}`, value]);
  const answers = responsesOf(document, operation).flatMap(([status, response]) =>
    Object.entries((response.content as Record<string, Json> | undefined) ?? {}).map(([media, value]): [string, Json] => [`${status} ${media}`, value]),
  );
  return [...requests, ...answers];
}

const listed = (what: string, items: string[]) => (items.length > 0 ? `${what} ${items.join(", ")}` : undefined);

/** The rules, each naming what an operation lacks. */
const CHECKS: Record<string, Check> = {
  "an operationId, a tag, a summary and a description": (_document, operation) => {
    const missing = ["operationId", "summary", "description"].filter((key) => typeof operation[key] !== "string" || operation[key].trim() === "");
    if (!Array.isArray(operation.tags) || operation.tags.length === 0) missing.push("tags");
    return listed("no", missing);
  },
  "every response described in words of its own, never as the plugin's 'Default Response'": (document, operation) => {
    const bad = responsesOf(document, operation).filter(([, response]) => typeof response.description !== "string" || /^(Default Response)?$/.test(response.description));
    return listed("undescribed responses", bad.map(([status]) => status));
  },
  "an example of every body it takes or answers, and of every path parameter": (document, operation) => {
    const bare = mediaTypes(document, operation).filter(([, media]) => media.example === undefined && Object.keys((media.examples as Json | undefined) ?? {}).length === 0);
    const parameters = ((operation.parameters as Json[] | undefined) ?? []).filter((parameter) => parameter.in === "path" && parameter.example === undefined);
    return listed("no example for", [...bare.map(([where]) => where), ...parameters.map((parameter) => `parameter ${String(parameter.name)}`)]);
  },
  "what any request may get (400, 408, 429, 431, 500, 503) and, for a write, 413": (_document, operation, method) => {
    const statuses = Object.keys(operation.responses as Json);
    const expected = ["400", "408", "429", "431", "500", "503", ...(WRITES.has(method) ? ["413"] : [])];
    return listed("missing", expected.filter((status) => !statuses.includes(status)));
  },
  "every error as application/problem+json, the content patch's ContentConflict aside": (document, operation, method, path) => {
    const bad = responsesOf(document, operation)
      .filter(([status]) => status >= "4")
      .map(([status, response]) => [status, Object.keys((response.content as Json | undefined) ?? {}).join(" ")])
      .filter(([status, media]) => media !== "application/problem+json" && !(method === "patch" && path.endsWith("/content") && status === "409"));
    return listed("errors", bad.map(([status, media]) => `${status} as ${media}`));
  },
  "the headers its answers carry: X-Request-Id on all, Retry-After on 429 and 503, WWW-Authenticate on a Basic 401": (document, operation) => {
    const basic = ((operation.security as Json[] | undefined) ?? []).some((requirement) =>
      Object.keys(requirement).some((name) => document.components.securitySchemes[name]?.scheme === "basic"),
    );
    const missing = responsesOf(document, operation).flatMap(([status, response]) => {
      const headers = Object.keys((response.headers as Json | undefined) ?? {});
      const needed = ["X-Request-Id", ...(status === "429" || status === "503" ? ["Retry-After"] : []), ...(status === "401" && basic ? ["WWW-Authenticate"] : [])];
      return needed.filter((header) => !headers.includes(header)).map((header) => `${status} ${header}`);
    });
    return listed("no", missing);
  },
  "security from the defined schemes only": (document, operation) => {
    const unknown = ((operation.security as Json[] | undefined) ?? []).flatMap(Object.keys).filter((name) => !(name in document.components.securitySchemes));
    return listed("unknown schemes", unknown);
  },
};

/** What breaks `check`, one line per operation, so that a failure lists every offender. */
function offenders(document: Document, check: Check, among = operationsOf(document)): string[] {
  return among.flatMap(({ name, method, path, operation }) => {
    const found = check(document, operation, method, path);
    return found === undefined ? [] : [`${name}: ${found}`];
  });
}

describe("every operation of the served OpenAPI document", () => {
  let document: Document;
  beforeAll(async () => {
    document = (await servedOpenApi()) as unknown as Document;
  });

  it("covers at least the twenty operations of the interface, under the root's security (none) unless it says its own", () => {
    expect(operationsOf(document).length).toBeGreaterThanOrEqual(20);
    expect(document.security).toEqual([]);
  });

  it.each(Object.keys(CHECKS))("has %s", (rule) => {
    expect(offenders(document, CHECKS[rule]!)).toEqual([]);
  });

  it("says where a created document is: Location on the 201 of POST /documents", () => {
    const created = resolved(document, (document.paths["/api/v1/documents"]?.post?.responses as Record<string, Json>)["201"]!);

    expect(Object.keys((created.headers as Json | undefined) ?? {}).sort()).toEqual(["Location", "X-Request-Id"]);
  });
});

describe("a route added later, with nothing but a body and an answer", () => {
  it("gets the common answers from src/http/openapi-operations.ts, and the checks name what it lacks", async () => {
    const store = SqliteStore.open(":memory:");
    const app = await buildApp({ composition: compose({ config: testConfig(), store, clock: new ManualClock() }), identity: { name: "folio", version: "0.1.0" } });
    try {
      const body = Type.Object({ note: Type.String() });
      app.post("/api/v1/notes", { schema: { body, response: { 201: Type.Object({ id: Type.String() }) } } }, () => ({ id: "n" }));
      await app.ready();
      const document = (await app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json<Document>();
      const added = operationsOf(document).filter(({ name }) => name === "POST /api/v1/notes");

      expect(Object.keys((added[0]?.operation.responses as Json | undefined) ?? {})).toEqual(["201", "400", "408", "413", "429", "431", "500", "503"]);
      expect(Object.values(CHECKS).flatMap((check) => offenders(document, check, added))).toEqual([
        "POST /api/v1/notes: no summary, description, tags",
        "POST /api/v1/notes: undescribed responses 201",
        "POST /api/v1/notes: no example for request application/json, 201 application/json",
      ]);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
