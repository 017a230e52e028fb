import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/test-app.js";

// The read-link operations in the OpenAPI document (docs/sharing.md): each with a summary, a
// description, a described response for every status, an example of each success, problem+json errors.

interface Response {
  $ref?: string;
  description?: string;
  content?: Record<string, { schema?: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> }>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: { in: string; name: string; required?: boolean; schema: Record<string, unknown> }[];
  responses: Record<string, Response>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
    responses: Record<string, Response>;
  };
}

const LINK = "/api/v1/documents/{documentId}/read-link";
const READ = "/api/v1/read/{readId}";

/** method, path, the statuses it answers, the name of its path parameter. */
const OPERATIONS: [string, string, string[], string][] = [
  ["post", LINK, ["201", "400", "404"], "documentId"],
  ["get", LINK, ["200", "400", "404"], "documentId"],
  ["delete", LINK, ["204", "400", "404"], "documentId"],
  ["get", READ, ["200", "400", "404"], "readId"],
  ["get", `${READ}/history`, ["200", "400", "404"], "readId"],
  ["get", `${READ}/changes`, ["200", "204", "400", "404"], "readId"],
];

/** An operation's responses by status, each shared response (`$ref`) followed. */
function responsesOf(method: string, path: string): [string, Response][] {
  return Object.entries(document.paths[path]?.[method]?.responses ?? {}).map(([status, response]) => [
    status,
    response.$ref ? (document.components.responses[response.$ref.replace("#/components/responses/", "")] ?? {}) : response,
  ]);
}

let t: TestApp;
let document: OpenApiDocument;

beforeAll(async () => {
  t = await buildTestApp();
  document = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json<OpenApiDocument>();
});

afterAll(async () => {
  await t.close();
});

describe("GET /api/v1/openapi.json: the read-link operations", () => {
  it.each(OPERATIONS)("describes %s %s with a summary, a description and its statuses, each described", (method, path, statuses) => {
    const operation = document.paths[path]?.[method];

    expect(operation?.summary).toMatch(/\w/);
    expect(operation?.description?.length).toBeGreaterThan(80);
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(statuses));
    for (const [status, response] of responsesOf(method, path)) expect(response.description, status).toMatch(/\w/);
  });

  it.each(OPERATIONS)("describes every error of %s %s as application/problem+json", (method, path) => {
    const responses = responsesOf(method, path).filter(([status]) => Number(status) >= 400);

    expect(responses.length).toBeGreaterThanOrEqual(2);
    for (const [status, response] of responses) {
      expect([status, Object.keys(response.content ?? {})]).toEqual([status, ["application/problem+json"]]);
    }
  });

  it.each(OPERATIONS)("gives the success of %s %s an example, or no body for 204", (method, path) => {
    const responses = responsesOf(method, path).filter(([status]) => status.startsWith("2"));

    for (const [status, response] of responses) {
      const media = response.content?.["application/json"];
      if (status === "204") expect(response.content).toBeUndefined();
      else expect(media?.example ?? Object.values(media?.examples ?? {})[0]?.value, status).toBeDefined();
    }
  });

  it.each(OPERATIONS)("describes the path parameter of %s %s as a required UUID", (method, path, _statuses, name) => {
    const inPath = (document.paths[path]?.[method]?.parameters ?? []).filter((parameter) => parameter.in === "path");

    expect(inPath.map((parameter) => ({ name: parameter.name, required: parameter.required, type: parameter.schema.type, format: parameter.schema.format }))).toEqual([
      { name, required: true, type: "string", format: "uuid" },
    ]);
  });

  it("names the shapes ReadLink and ReadOnlyDocument, with the read id where a document has its id", () => {
    const { ReadLink, ReadOnlyDocument } = document.components.schemas;

    expect({ properties: Object.keys(ReadLink?.properties ?? {}), required: ReadLink?.required }).toEqual({ properties: ["readId"], required: ["readId"] });
    const fields = ["readId", "title", "content", "version", "createdAt", "updatedAt"];
    expect({ properties: Object.keys(ReadOnlyDocument?.properties ?? {}), required: ReadOnlyDocument?.required }).toEqual({ properties: fields, required: fields });
    expect(document.paths[READ]?.get?.responses["200"]?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/ReadOnlyDocument" });
    expect(document.paths[`${READ}/changes`]?.get?.responses["200"]?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/ChangeFeed" });
  });
});
