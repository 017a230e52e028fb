import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { sendRaw } from "../support/raw-http.js";
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

describe("answers Node gives before Fastify sees the request", () => {
  it("carry X-Request-Id and nosniff too: 431 for headers too large, 400 for a request that is not HTTP", async () => {
    const t = await buildTestApp();
    apps.push(t);
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (t.app.server.address() as AddressInfo).port;
    const large = await sendRaw(port, { method: "GET", target: "/api/v1/info", headers: [["X-Request-Id", "trace-431"], ["X-Padding", "p".repeat(20_000)]] }, 5000);
    const broken = await sendRaw(port, { method: "GET", target: "/api/v1/info", headers: [["Content-Length", "abc"]] }, 5000);
    expect([large, broken].map((answer) => [answer.status, answer.headers["content-type"], answer.headers["x-content-type-options"]])).toEqual([
      [431, "application/problem+json; charset=utf-8", "nosniff"],
      [400, "application/problem+json; charset=utf-8", "nosniff"],
    ]);
    expect(large.headers["x-request-id"]).toBe("trace-431");
    expect(broken.headers["x-request-id"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
