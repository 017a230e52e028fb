import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/test-app.js";

// Names for generated clients in other languages: an operationId on every operation and the wire
// shapes as named component schemas (src/http/openapi.ts).

let t: TestApp | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId?: string }>>;
  components: { schemas: Record<string, Record<string, unknown>>; responses?: Record<string, unknown>; headers?: Record<string, unknown> };
}

async function openApi(): Promise<OpenApiDocument> {
  t = await buildTestApp();
  const response = await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
  expect(response.statusCode).toBe(200);
  return response.json<OpenApiDocument>();
}

const DOCUMENT = "/api/v1/documents/{documentId}";

describe("GET /api/v1/openapi.json: names for generated clients", () => {
  const OPERATION_IDS: [string, string, string][] = [
    ["get", "/api/v1/info", "getServiceInfo"],
    ["get", "/api/v1/documents", "listDocuments"],
    ["post", "/api/v1/documents", "createDocument"],
    ["get", DOCUMENT, "getDocument"],
    ["put", DOCUMENT, "replaceDocument"],
    ["delete", DOCUMENT, "deleteDocument"],
    ["get", `${DOCUMENT}/history`, "getHistory"],
    ["post", `${DOCUMENT}/restore`, "restoreDocument"],
    ["patch", `${DOCUMENT}/title`, "renameDocument"],
    ["patch", `${DOCUMENT}/content`, "patchContent"],
    ["get", `${DOCUMENT}/changes`, "getChanges"],
    ["get", `${DOCUMENT}/events`, "streamChanges"],
    ["post", `${DOCUMENT}/read-link`, "createReadLink"],
    ["get", `${DOCUMENT}/read-link`, "getReadLink"],
    ["delete", `${DOCUMENT}/read-link`, "deleteReadLink"],
    ["get", "/api/v1/read/{readId}", "readDocument"],
    ["get", "/api/v1/read/{readId}/history", "readHistory"],
    ["get", "/api/v1/read/{readId}/changes", "readChanges"],
    ["get", "/api/v1/read/{readId}/events", "readEvents"],
    ["get", `${DOCUMENT}/presence`, "getPresence"],
    ["put", `${DOCUMENT}/presence/{clientId}`, "setPresence"],
    ["delete", `${DOCUMENT}/presence/{clientId}`, "deletePresence"],
    ["get", "/api/v1/read/{readId}/presence", "readPresence"],
    ["put", "/api/v1/read/{readId}/presence/{clientId}", "setReadPresence"],
    ["delete", "/api/v1/read/{readId}/presence/{clientId}", "deleteReadPresence"],
    ["post", "/api/v1/tracker/auth", "trackerLogin"],
    ["get", "/api/v1/tracker/projects", "listTrackerProjects"],
    ["post", "/api/v1/tracker/userstories", "createUserStory"],
    ["post", "/api/v1/tracker/tasks", "createTask"],
    ["get", "/api/v1/tracker/userstories/{ref}", "getUserStory"],
    ["get", "/api/v1/tracker/tasks/{ref}", "getTask"],
    ["patch", "/api/v1/tracker/userstories/{ref}/status", "moveUserStory"],
    ["patch", "/api/v1/tracker/tasks/{ref}/status", "moveTask"],
    ["get", "/api/v1/tracker/userstory-statuses", "listUserStoryStatuses"],
    ["get", "/api/v1/tracker/task-statuses", "listTaskStatuses"],
  ];

  it("gives every operation an operationId, each one unique", async () => {
    const document = await openApi();
    const ids = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, op]) => [`${method} ${path}`, op.operationId]),
    );
    expect(ids.length).toBeGreaterThanOrEqual(OPERATION_IDS.length);
    expect(ids.filter(([, id]) => typeof id !== "string" || id === "")).toEqual([]);
    expect(new Set(ids.map(([, id]) => id)).size).toBe(ids.length);
  });

  it.each(OPERATION_IDS)("names %s %s %s", async (method, path, id) => {
    const document = await openApi();

    expect(document.paths[path]?.[method]?.operationId).toBe(id);
  });

  it("names the wire shapes as component schemas and refers to them with $ref", async () => {
    const document = await openApi();

    expect(Object.keys(document.components.schemas).sort()).toEqual(
      [
        "ChangeEvent",
        "ChangeFeed",
        "ChangeFeedContent",
        "ChangeFeedDiff",
        "ContentConflict",
        "ContentPatchConflict",
        "ContentPatchRequest",
        "ContentPatchResult",
        "Document",
        "DocumentCreateRequest",
        "DocumentHistoryEntry",
        "DocumentUpdateRequest",
        "LineOperation",
        "PresenceClient",
        "PresenceList",
        "PresenceUpdateRequest",
        "ProblemDetail",
        "ReadLink",
        "ReadOnlyDocument",
        "RestoreRequest",
        "ServiceInfo",
        "TitlePatchRequest",
        "TrackerAuthRequest",
        "TrackerProject",
        "TrackerSession",
        "TrackerStatus",
        "TrackerStatusPatch",
        "TrackerStoryCreateRequest",
        "TrackerTaskCreateRequest",
        "TrackerTicket",
        "TrackerTicketDetail",
      ].sort(),
    );
    const content = document.paths[`${DOCUMENT}/content`]?.patch as unknown as {
      requestBody: { content: Record<string, { schema: unknown }> };
      responses: Record<string, { content: Record<string, { schema: unknown }> }>;
    };
    expect(content.requestBody.content["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/ContentPatchRequest" });
    expect(content.responses["200"]?.content["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/ContentPatchResult" });
    // One schema for both bodies of the 409 (docs/openapi.md, "Two shapes in one answer").
    expect(Object.entries(content.responses["409"]?.content ?? {}).map(([media, { schema }]) => [media, schema])).toEqual([
      ["application/json", { $ref: "#/components/schemas/ContentPatchConflict" }],
      ["application/problem+json", { $ref: "#/components/schemas/ContentPatchConflict" }],
    ]);
    expect(document.components.schemas.ContentPatchConflict?.oneOf).toEqual([
      { $ref: "#/components/schemas/ContentConflict" },
      { $ref: "#/components/schemas/ProblemDetail" },
    ]);
    const ops = (document.components.schemas.ContentPatchRequest?.properties as { ops?: { items?: unknown } } | undefined)?.ops;
    expect(ops?.items).toEqual({ $ref: "#/components/schemas/LineOperation" });
    expect(Object.keys(document.components.schemas.ContentPatchResult?.properties ?? {})).toEqual(["version", "opsSinceBase", "checksum"]);
  });

  it("leaves no $ref dangling", async () => {
    const document = await openApi();
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/(schemas|responses|headers)\/([^"]+)"/g)].map((match) => [match[1] as "schemas" | "responses" | "headers", match[2]!] as const);

    expect(refs.length).toBeGreaterThan(40);
    expect(new Set(refs.map(([kind]) => kind))).toEqual(new Set(["schemas", "responses", "headers"]));
    expect(refs.filter(([kind, name]) => !(name in (document.components[kind] ?? {})))).toEqual([]);
  });
});

