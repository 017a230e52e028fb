import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { REDACTED_PATHS } from "../../src/http/app.js";
import { UUID } from "../support/http-expect.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";

// One line per request an operator can search: request id, method, route template, status,
// duration, client address and, for problems, the problem type; never the path, a body or a secret.

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

type Line = Record<string, unknown>;

async function appWithLog(change?: Parameters<typeof buildTestApp>[0] extends infer O ? (O extends { config?: infer C } ? C : never) : never) {
  const lines: Line[] = [];
  const logger = pino({ level: "info", redact: REDACTED_PATHS }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  const t = await buildTestApp({ logger, ...(change ? { config: change } : {}) });
  apps.push(t);
  return { t, lines };
}

const requestLines = (lines: Line[]) => lines.filter((line) => line.msg === "request");
const PASSWORD = "correct horse battery staple";

describe("request logs", () => {
  it("write one line per request with the request id taken from X-Request-Id and echoed", async () => {
    const { t, lines } = await appWithLog();
    const created = await t.app.inject({ method: "POST", url: "/api/v1/documents", headers: { "x-request-id": "lb-7f3a.1" }, payload: { title: "T", content: "secret text" } });
    expect(created.headers["x-request-id"]).toBe("lb-7f3a.1");
    const id = created.json<{ id: string }>().id;
    const missing = await t.app.inject({ method: "GET", url: "/api/v1/documents/00000000-0000-4000-8000-000000000000" });
    const madeUp = missing.headers["x-request-id"];
    expect(madeUp).toMatch(UUID);

    const logged = requestLines(lines).map(({ time: _time, pid: _pid, hostname: _hostname, durationMs, ...rest }) => {
      expect(typeof durationMs).toBe("number");
      return rest;
    });
    expect(logged).toEqual([
      { level: 30, reqId: "lb-7f3a.1", method: "POST", route: "/api/v1/documents", status: 201, remoteAddress: "127.0.0.1", msg: "request" },
      {
        level: 30,
        reqId: madeUp,
        method: "GET",
        route: "/api/v1/documents/:documentId",
        status: 404,
        remoteAddress: "127.0.0.1",
        problemType: "urn:folio:problem:not-found",
        msg: "request",
      },
    ]);
    // Fastify's own two lines per request are gone, and no line holds the id (the link) or the text.
    expect(lines.filter((line) => line.msg === "incoming request" || line.msg === "request completed")).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain(id);
    expect(JSON.stringify(lines)).not.toContain("secret text");
  });

  it("warn when the document list locks, and never log the password", async () => {
    const { t, lines } = await appWithLog((config) => Object.assign(config.masterPassword, { maxFailures: 2, lockSeconds: 60 }));
    const basic = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString("base64")}` };
    expect((await t.app.inject({ method: "GET", url: "/api/v1/documents", headers: basic })).statusCode).toBe(401);
    expect(lines.filter((line) => line.level === 40)).toEqual([]);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/documents", headers: basic })).statusCode).toBe(401);
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings.map(({ msg, lockedUntil }) => ({ msg, lockedUntil }))).toEqual([
      { msg: "the document list is locked after too many failed attempts", lockedUntil: new Date(t.clock.now() + 60_000).toISOString() },
    ]);
    expect(requestLines(lines).map((line) => line.problemType)).toEqual(["urn:folio:problem:credentials-required", "urn:folio:problem:credentials-required"]);
    expect(JSON.stringify(lines)).not.toContain(PASSWORD);
    expect(JSON.stringify(lines)).not.toContain(Buffer.from(`admin:${PASSWORD}`).toString("base64"));
  });

  it("never hold a presence update's name, state or client id (docs/api.md, Presence): only the route template", async () => {
    const { t, lines } = await appWithLog();
    const id = (await t.app.inject({ method: "POST", url: "/api/v1/documents", payload: { title: "T", content: "a" } })).json<{ id: string }>().id;
    const url = `/api/v1/documents/${id}/presence/c-secret-client`;

    expect((await t.app.inject({ method: "PUT", url, payload: { displayName: "Secret Name", state: { cursor: "secret-cursor" } } })).statusCode).toBe(204);
    expect((await t.app.inject({ method: "GET", url: `/api/v1/documents/${id}/presence` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "DELETE", url })).statusCode).toBe(204);

    expect(requestLines(lines).map((line) => [line.method, line.route, line.status])).toEqual([
      ["POST", "/api/v1/documents", 201],
      ["PUT", "/api/v1/documents/:documentId/presence/:clientId", 204],
      ["GET", "/api/v1/documents/:documentId/presence", 200],
      ["DELETE", "/api/v1/documents/:documentId/presence/:clientId", 204],
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/secret|c-secret-client/i);
  });

  it("give the client's address from X-Forwarded-For only with server.trust-proxy", async () => {
    const forwarded = { "x-forwarded-for": "203.0.113.9" };
    const plain = await appWithLog();
    await plain.t.app.inject({ method: "GET", url: "/health/live", headers: forwarded });
    expect(requestLines(plain.lines).map((line) => line.remoteAddress)).toEqual(["127.0.0.1"]);

    const trusting = await appWithLog((config) => (config.server.trustProxy = ["127.0.0.1"]));
    await trusting.t.app.inject({ method: "GET", url: "/health/live", headers: forwarded });
    expect(requestLines(trusting.lines).map((line) => line.remoteAddress)).toEqual(["203.0.113.9"]);
  });
});
