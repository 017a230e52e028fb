import type { AddressInfo } from "node:net";
import createClient, { type Middleware } from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checksumOf } from "../../src/core/checksum.js";
import { OpenApiConformance, type OpenApiDocument } from "../support/openapi-conformance.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
// Made from the served document by scripts/openapi.ts before the type check (`npm run typecheck`).
import type { components, paths } from "./generated/openapi-types.js";

/** Compiles only when `T` is true: each media type of the content patch's 409 holds both bodies. */
type Holds<T extends true> = T;
type Conflict409 = paths["/api/v1/documents/{documentId}/content"]["patch"]["responses"][409]["content"];
type Both = [components["schemas"]["ContentConflict"], components["schemas"]["ProblemDetail"]];
export type ConflictHoldsBoth = Holds<Both extends [Conflict409["application/json"], Conflict409["application/json"]] ? true : false>;
export type ProblemHoldsBoth = Holds<Both extends [Conflict409["application/problem+json"], Conflict409["application/problem+json"]] ? true : false>;

// A client generated from the OpenAPI document alone (openapi-typescript + openapi-fetch) runs the
// whole editing protocol against the real app over loopback HTTP, and every answer it gets is held
// against the document: a status it documents, a media type that status documents, a body of its
// schema. T0 is the test clock's start.

let t: TestApp;
let client: ReturnType<typeof createClient<paths>>;
const faults: string[] = [];
const seen: string[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const document = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json<OpenApiDocument>();
  const conformance = new OpenApiConformance(document);
  const check: Middleware = {
    async onResponse({ request, response }) {
      const target = new URL(request.url).pathname;
      seen.push(`${request.method} ${conformance.operationOf(request.method, target) ?? target} ${response.status}`);
      const body = await response.clone().text();
      const fault = conformance.fault({ method: request.method, target, status: response.status, contentType: response.headers.get("content-type") ?? undefined, body });
      if (fault) faults.push(fault);
      if (!response.headers.get("x-request-id")) faults.push(`${request.method} ${target}: no X-Request-Id`);
    },
  };
  client = createClient<paths>({ baseUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` });
  client.use(check);
});

afterAll(async () => {
  await t?.close();
});

const TEXT = "alpha\nbeta\ngamma";

describe("a client generated from the OpenAPI document (openapi-typescript + openapi-fetch)", () => {
  it("creates, reads, edits live, meets both 409s, follows the feed, renames, deletes and restores", async () => {
    const created = await client.POST("/api/v1/documents", { body: { title: "Generated", content: TEXT } });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    expect(created.response.headers.get("location")).toBe(`/api/v1/documents/${id}`);
    const path = { path: { documentId: id } };

    const read = await client.GET("/api/v1/documents/{documentId}", { params: path });
    expect(read.data).toEqual(created.data);

    // Ada rewrites line 1 on version 1: accepted as version 2, with the new text's checksum.
    const ada = { baseVersion: 1, checksum: checksumOf(TEXT), clientId: "ada", seq: 1, ops: [{ op: "replace" as const, index: 1, count: 1, lines: ["beta by Ada"] }] };
    const patched = await client.PATCH("/api/v1/documents/{documentId}/content", { params: path, body: ada });
    expect(patched.data).toEqual({ version: 2, opsSinceBase: [], checksum: checksumOf("alpha\nbeta by Ada\ngamma") });
    // A resend is the same answer, written once.
    expect((await client.PATCH("/api/v1/documents/{documentId}/content", { params: path, body: ada })).data).toEqual(patched.data);

    // Bo rewrote the same line on version 1: a true overlap, a ContentConflict as application/json.
    const bo = { ...ada, clientId: "bo", ops: [{ op: "replace" as const, index: 1, count: 1, lines: ["beta by Bo"] }] };
    const conflict = await client.PATCH("/api/v1/documents/{documentId}/content", { params: path, body: bo });
    expect([conflict.response.status, conflict.response.headers.get("content-type")]).toEqual([409, "application/json; charset=utf-8"]);
    expect(conflict.error).toEqual({ currentVersion: 2, opsSinceBase: [{ op: "replace", index: 1, count: 1, lines: ["beta by Ada"] }] });
    // The generated type holds both 409 bodies: a field only one has tells them apart, without a cast.
    expect(conflict.error && "currentVersion" in conflict.error ? conflict.error.opsSinceBase.length : undefined).toBe(1);
    // Ada's seq 1 again with another body: the seq-reused problem, the 409's other media type.
    const reused = await client.PATCH("/api/v1/documents/{documentId}/content", { params: path, body: { ...ada, ops: [{ op: "delete", index: 0, count: 1 }] } });
    expect([reused.response.status, reused.response.headers.get("content-type")]).toEqual([409, "application/problem+json; charset=utf-8"]);
    expect(reused.error).toMatchObject({ type: "urn:folio:problem:seq-reused", status: 409 });
    expect(reused.error && "type" in reused.error ? reused.error.type : undefined).toBe("urn:folio:problem:seq-reused");

    const diff = await client.GET("/api/v1/documents/{documentId}/changes", { params: { ...path, query: { since: 1, wait: 0 } } });
    expect(diff.data).toEqual({
      fromVersion: 1,
      currentVersion: 2,
      ops: [{ op: "replace", index: 1, count: 1, lines: ["beta by Ada"] }],
      events: [{ version: 2, changeType: "UPDATED", clientId: "ada" }],
    });
    const full = await client.GET("/api/v1/documents/{documentId}/changes", { params: { ...path, query: { since: 0, wait: 0 } } });
    expect(full.data).toEqual({ currentVersion: 2, content: "alpha\nbeta by Ada\ngamma", events: [{ version: 1, changeType: "CREATED" }, { version: 2, changeType: "UPDATED", clientId: "ada" }] });
    const none = await client.GET("/api/v1/documents/{documentId}/changes", { params: { ...path, query: { since: 2, wait: 0 } } });
    expect([none.response.status, none.data]).toEqual([204, undefined]);

    const stale = await client.PATCH("/api/v1/documents/{documentId}/title", { params: path, body: { title: "Renamed", expectedVersion: 1 } });
    expect(stale.error).toMatchObject({ type: "urn:folio:problem:version-conflict", status: 409 });
    const renamed = await client.PATCH("/api/v1/documents/{documentId}/title", { params: path, body: { title: "Renamed", expectedVersion: 2 } });
    expect([renamed.data?.title, renamed.data?.version]).toEqual(["Renamed", 3]);

    const history = await client.GET("/api/v1/documents/{documentId}/history", { params: path });
    expect(history.data?.map((entry) => [entry.version, entry.changeType, entry.title])).toEqual([
      [1, "CREATED", "Generated"],
      [3, "RENAMED", "Renamed"],
    ]);

    expect((await client.DELETE("/api/v1/documents/{documentId}", { params: path })).response.status).toBe(204);
    const gone = await client.GET("/api/v1/documents/{documentId}", { params: path });
    expect(gone.error).toMatchObject({ type: "urn:folio:problem:not-found", status: 404 });
    const restored = await client.POST("/api/v1/documents/{documentId}/restore", { params: path });
    expect([restored.data?.version, restored.data?.title, restored.data?.content]).toEqual([5, "Renamed", "alpha\nbeta by Ada\ngamma"]);
    const rolledBack = await client.POST("/api/v1/documents/{documentId}/restore", { params: path, body: { version: 1 } });
    expect([rolledBack.data?.version, rolledBack.data?.content]).toEqual([6, TEXT]);

    expect(faults).toEqual([]);
  });

  it("meets the documented answers of the list, the service and a bad request", async () => {
    const list = await client.GET("/api/v1/documents");
    expect([list.response.status, list.response.headers.get("www-authenticate")]).toEqual([401, 'Basic realm="documents", charset="UTF-8"']);
    const info = await client.GET("/api/v1/info");
    expect(info.data).toEqual({ name: "folio", version: "0.1.0", tracker: false });
    const blank = await client.POST("/api/v1/documents", { body: { title: "   ", content: "" } });
    expect(blank.error).toMatchObject({ type: "urn:folio:problem:invalid-request", detail: "title must not be empty or only white space" });
    const tracker = await client.GET("/api/v1/tracker/projects", { params: { query: { member: 7 } }, headers: { "X-Tracker-Token": "token" } });
    expect(tracker.error).toMatchObject({ type: "urn:folio:problem:tracker-not-configured", status: 503 });

    expect(faults).toEqual([]);
    const doc = "/api/v1/documents/{documentId}";
    expect(seen).toEqual([
      "POST /api/v1/documents 201",
      `GET ${doc} 200`,
      `PATCH ${doc}/content 200`,
      `PATCH ${doc}/content 200`,
      `PATCH ${doc}/content 409`,
      `PATCH ${doc}/content 409`,
      `GET ${doc}/changes 200`,
      `GET ${doc}/changes 200`,
      `GET ${doc}/changes 204`,
      `PATCH ${doc}/title 409`,
      `PATCH ${doc}/title 200`,
      `GET ${doc}/history 200`,
      `DELETE ${doc} 204`,
      `GET ${doc} 404`,
      `POST ${doc}/restore 200`,
      `POST ${doc}/restore 200`,
      "GET /api/v1/documents 401",
      "GET /api/v1/info 200",
      "POST /api/v1/documents 400",
      "GET /api/v1/tracker/projects 503",
    ]);
  });
});
