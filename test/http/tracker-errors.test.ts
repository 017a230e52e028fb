import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { InjectOptions } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { seedWorld, startTrackerHarness, type TrackerHarness, expectTrackerProblem } from "../support/tracker-harness.js";

/** One valid request per route, without the token header. */
const ROUTES: (InjectOptions & { url: string; token: boolean })[] = [
  { method: "POST", url: "/api/v1/tracker/auth", payload: { username: "alice", password: "pw" }, token: false },
  { method: "GET", url: "/api/v1/tracker/projects?member=1", token: true },
  { method: "POST", url: "/api/v1/tracker/userstories", payload: { project: 1, subject: "x" }, token: true },
  { method: "POST", url: "/api/v1/tracker/tasks", payload: { project: 1, subject: "x", userStory: 1 }, token: true },
  { method: "GET", url: "/api/v1/tracker/userstories/1?slug=alice-folio", token: true },
  { method: "GET", url: "/api/v1/tracker/tasks/2?slug=alice-folio", token: true },
  { method: "PATCH", url: "/api/v1/tracker/userstories/1/status?slug=alice-folio", payload: { status: 1, version: 1 }, token: true },
  { method: "PATCH", url: "/api/v1/tracker/tasks/2/status?slug=alice-folio", payload: { status: 1, version: 1 }, token: true },
  { method: "GET", url: "/api/v1/tracker/userstory-statuses?slug=alice-folio", token: true },
  { method: "GET", url: "/api/v1/tracker/task-statuses?slug=alice-folio", token: true },
];
const TOKEN_ROUTES = ROUTES.filter((route) => route.token);
const inject = (harness: TrackerHarness, { token: _token, ...route }: (typeof ROUTES)[number], headers: Record<string, string> = {}) =>
  harness.app.inject({ ...route, headers });

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("tracker errors", () => {
  let harness: TrackerHarness;
  afterEach(async () => harness.close());

  describe("order of checks", () => {
    it.each(ROUTES.map((route) => [`${route.method} ${route.url.split("?")[0]}`, route] as const))(
      "answers 503 on %s without a tracker",
      async (_name, route) => {
        harness = await startTrackerHarness({ tracker: false });

        const response = await inject(harness, route, { "x-tracker-token": "t" });

        expectTrackerProblem(response, { code: "tracker-not-configured", detail: "no ticket tracker is configured on this service", instance: route.url.replace(/\?.*/, "") });
      },
    );

    it("answers 503 without a tracker before the token, the body and the parameters", async () => {
      harness = await startTrackerHarness({ tracker: false });

      const noToken = await harness.app.inject({ method: "POST", url: "/api/v1/tracker/userstories", payload: "{not json", headers: { "content-type": "application/json" } });
      const badParams = await harness.app.inject({ method: "GET", url: "/api/v1/tracker/userstories/zero" });
      const badBody = await harness.app.inject({ method: "POST", url: "/api/v1/tracker/auth", payload: { username: "" } });

      expect([noToken.statusCode, badParams.statusCode, badBody.statusCode]).toEqual([503, 503, 503]);
    });

    it.each(TOKEN_ROUTES.map((route) => [`${route.method} ${route.url.split("?")[0]}`, route] as const))(
      "answers 401 on %s without a token, before any upstream call",
      async (_name, route) => {
        harness = await startTrackerHarness();

        const response = await inject(harness, route);

        expectTrackerProblem(response, { code: "tracker-token-required", detail: "send the tracker token from POST /tracker/auth in the X-Tracker-Token header", instance: route.url.replace(/\?.*/, "") });
        expect(harness.fake.requests).toEqual([]);
      },
    );

    it("answers 401 for a missing or empty token before the body and parameters are checked", async () => {
      harness = await startTrackerHarness();

      const badBody = await harness.app.inject({ method: "POST", url: "/api/v1/tracker/userstories", payload: { subject: "" } });
      const badJson = await harness.app.inject({ method: "POST", url: "/api/v1/tracker/tasks", payload: "{", headers: { "content-type": "application/json" } });
      const badParams = await harness.app.inject({ method: "GET", url: "/api/v1/tracker/tasks/-1", headers: { "x-tracker-token": "" } });

      expect([badBody.statusCode, badJson.statusCode, badParams.statusCode]).toEqual([401, 401, 401]);
      expect(harness.fake.requests).toEqual([]);
    });

    it("answers 400 for a token of 513 characters before the body is checked and before any upstream call", async () => {
      harness = await startTrackerHarness();

      const response = await harness.app.inject({
        method: "POST",
        url: "/api/v1/tracker/userstories",
        payload: { subject: "" },
        headers: { "x-tracker-token": "t".repeat(513) },
      });

      expectTrackerProblem(response, { code: "invalid-request", detail: "the X-Tracker-Token header is longer than 512 characters", instance: "/api/v1/tracker/userstories" });
      expect(harness.fake.requests).toEqual([]);
    });

    it.each([
      ["a Bearer prefix", "Bearer abc"],
      ["a control character", "abc\u007fdef"],
      ["a character outside ASCII", "abcé"],
    ])("answers 400 for a token with %s before any upstream call", async (_name, token) => {
      harness = await startTrackerHarness();

      const response = await harness.app.inject({ method: "GET", url: "/api/v1/tracker/projects?member=1", headers: { "x-tracker-token": token } });

      expectTrackerProblem(response, {
        code: "invalid-request",
        detail: "the X-Tracker-Token header must be the bare token: printable ASCII without spaces or a `Bearer ` prefix",
        instance: "/api/v1/tracker/projects",
      });
      expect(harness.fake.requests).toEqual([]);
    });

    it("passes a token of 512 characters on; the tracker's 401 for it comes back as 401", async () => {
      harness = await startTrackerHarness();
      const token = "t".repeat(512);

      const response = await harness.app.inject({ method: "GET", url: "/api/v1/tracker/projects?member=1", headers: { "x-tracker-token": token } });

      expectTrackerProblem(response, { code: "tracker-token-required", detail: "Given token not valid for any token type", instance: "/api/v1/tracker/projects" });
      expect(harness.fake.requests[0]!.headers.authorization).toBe(`Bearer ${token}`);
    });
  });

  describe("upstream failures", () => {
    async function startWorld(options: Parameters<typeof startTrackerHarness>[0] = {}) {
      harness = await startTrackerHarness(options);
      const world = seedWorld(harness.fake);
      const get = (url: string) => harness.app.inject({ method: "GET", url, headers: { "x-tracker-token": world.token } });
      return { ...world, get };
    }

    function expectUnavailable(response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, detail: string, instance: string) {
      expectTrackerProblem(response, { code: "tracker-unavailable", detail, instance });
    }

    it("answers 502 within the timeout when the tracker never answers", async () => {
      const { fake, get } = { ...(await startWorld({ timeoutMs: 300 })), fake: harness.fake };
      fake.interfere("hang");
      const started = Date.now();

      const response = await get("/api/v1/tracker/projects?member=1");

      expectUnavailable(response, "the tracker did not answer within 300 ms", "/api/v1/tracker/projects");
      expect(Date.now() - started).toBeLessThan(5000);
      expect(fake.requests).toHaveLength(1);
    });

    it("answers 502 when the second call of a lookup hangs: one deadline covers the whole operation", async () => {
      const { get } = await startWorld({ timeoutMs: 300 });
      harness.fake.interfere({ status: 200, body: { id: 1, name: "P", slug: "p" } });
      harness.fake.interfere("hang");

      const response = await get("/api/v1/tracker/userstories/1?slug=p");

      expectUnavailable(response, "the tracker did not answer within 300 ms", "/api/v1/tracker/userstories/1");
      expect(harness.fake.requests).toHaveLength(2);
    });

    it("answers 502 when the tracker fails with 500", async () => {
      const { get } = await startWorld();
      harness.fake.interfere("server-error");

      expectUnavailable(await get("/api/v1/tracker/task-statuses?slug=alice-folio"), "the tracker failed with status 500", "/api/v1/tracker/task-statuses");
    });

    it("answers 502 when nothing listens on the tracker's port", async () => {
      const port = await closedPort();
      harness = await startTrackerHarness({ apiUrl: `http://127.0.0.1:${port}/api/v1` });

      const response = await harness.app.inject({ method: "GET", url: "/api/v1/tracker/projects?member=1", headers: { "x-tracker-token": "t" } });

      expectUnavailable(response, "the tracker could not be reached", "/api/v1/tracker/projects");
    });

    it("answers 502 when the tracker answers with HTML instead of JSON", async () => {
      const { get } = await startWorld();
      harness.fake.interfere("html");

      expectUnavailable(await get("/api/v1/tracker/userstories/1?slug=alice-folio"), "the tracker answered 200 with a body that is not JSON", "/api/v1/tracker/userstories/1");
    });

    it("answers 502 when a 2xx body has an unexpected shape", async () => {
      const { get } = await startWorld();
      harness.fake.interfere({ status: 200, body: { results: [] } });

      expectUnavailable(await get("/api/v1/tracker/projects?member=1"), "the tracker answered 200 with a body that is not a list of projects", "/api/v1/tracker/projects");
    });

    it("answers 502 without reading on when the tracker's body is larger than 8 MiB", async () => {
      const { get } = await startWorld();
      harness.fake.interfere({ status: 200, body: ["x".repeat(9 * 1024 * 1024)] });

      expectUnavailable(await get("/api/v1/tracker/projects?member=1"), "the tracker's answer is larger than 8388608 bytes", "/api/v1/tracker/projects");
    });

    it("keeps Taiga's 429 with its wait as Retry-After", async () => {
      const { get } = await startWorld();
      harness.fake.interfere({ throttleSeconds: 42 });

      const response = await get("/api/v1/tracker/userstory-statuses?slug=alice-folio");

      expect(response.headers["retry-after"]).toBe("42");
      expectTrackerProblem(response, { code: "tracker-rejected", detail: "Request was throttled.Expected available in 42 seconds.", instance: "/api/v1/tracker/userstory-statuses", status: 429 });
    });

    it("takes a plain Retry-After when a proxy in front of Taiga throttles", async () => {
      const { get } = await startWorld();
      harness.fake.interfere({ status: 429, body: { detail: "slow down" }, headers: { "Retry-After": "7" } });

      const response = await get("/api/v1/tracker/projects?member=1");

      expect(response.headers["retry-after"]).toBe("7");
      expectTrackerProblem(response, { code: "tracker-rejected", status: 429, detail: "slow down", instance: "/api/v1/tracker/projects" });
    });

    it("answers 401 when the tracker no longer accepts the token", async () => {
      const { get, token } = await startWorld();
      harness.fake.tokens.delete(token);

      const response = await get("/api/v1/tracker/userstories/1?slug=alice-folio");

      expectTrackerProblem(response, { code: "tracker-token-required", detail: "Given token not valid for any token type", instance: "/api/v1/tracker/userstories/1" });
    });

    it("passes a bare JSON string body on as the detail", async () => {
      const { get } = await startWorld();
      harness.fake.interfere({ status: 400, body: "ref param is needed" });

      const response = await get("/api/v1/tracker/projects?member=1");

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "ref param is needed", instance: "/api/v1/tracker/projects" });
    });

    it("passes other statuses such as 451 on, with a generic detail when the body says nothing", async () => {
      const { get } = await startWorld();
      harness.fake.interfere({ status: 451, body: { _error_message: "Blocked element", _error_type: "taiga.base.exceptions.Blocked" } });
      harness.fake.interfere({ status: 409, body: {} });

      const blocked = await get("/api/v1/tracker/projects?member=1");
      const silent = await get("/api/v1/tracker/projects?member=1");

      expectTrackerProblem(blocked, { code: "tracker-rejected", status: 451, detail: "Blocked element", instance: "/api/v1/tracker/projects" });
      expectTrackerProblem(silent, { code: "tracker-rejected", status: 409, detail: "the tracker rejected the request with status 409", instance: "/api/v1/tracker/projects" });
    });

    it("never passes on a detail that carries the token", async () => {
      const { get, token } = await startWorld();
      harness.fake.interfere({ status: 400, body: { _error_message: `bad header Authorization: Bearer ${token}` } });

      const response = await get("/api/v1/tracker/projects?member=1");

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "the tracker rejected the request with status 400", instance: "/api/v1/tracker/projects" });
      expect(response.body).not.toContain(token);
    });

    it("answers 502 when the tracker redirects", async () => {
      const { get } = await startWorld();
      harness.fake.interfere({ status: 302, body: {}, headers: { Location: "http://127.0.0.1:1/elsewhere" } });

      expectUnavailable(await get("/api/v1/tracker/projects?member=1"), "the tracker answered with the unexpected status 302", "/api/v1/tracker/projects");
    });
  });
});
