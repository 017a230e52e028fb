import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/test-app.js";

// Headers every answer carries, whatever route or outcome: the request id, and nosniff so that no
// browser reads a document's text in a JSON body as HTML or script.

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

describe("headers on every answer", () => {
  it("sends X-Content-Type-Options: nosniff on JSON, problem+json, empty and text answers", async () => {
    const t = await buildTestApp();
    apps.push(t);
    const created = await t.app.inject({ method: "POST", url: "/api/v1/documents", payload: { title: "T", content: "<script>alert(1)</script>" } });
    const id = created.json<{ id: string }>().id;
    const answers = [
      created,
      await t.app.inject({ method: "GET", url: `/api/v1/documents/${id}` }),
      await t.app.inject({ method: "GET", url: "/api/v1/documents/00000000-0000-4000-8000-000000000000" }),
      await t.app.inject({ method: "GET", url: "/api/v1/no-such-route" }),
      await t.app.inject({ method: "DELETE", url: `/api/v1/documents/${id}` }),
      await t.app.inject({ method: "GET", url: "/metrics" }),
    ];
    expect(answers.map((answer) => [answer.statusCode, answer.headers["content-type"] ?? null, answer.headers["x-content-type-options"]])).toEqual([
      [201, "application/json; charset=utf-8", "nosniff"],
      [200, "application/json; charset=utf-8", "nosniff"],
      [404, "application/problem+json; charset=utf-8", "nosniff"],
      [404, "application/problem+json; charset=utf-8", "nosniff"],
      [204, null, "nosniff"],
      [200, "text/plain; version=0.0.4; charset=utf-8", "nosniff"],
    ]);
  });
});
