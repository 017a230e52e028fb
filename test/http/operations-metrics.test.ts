import { createDocument } from "../support/http-expect.js";
import { afterEach, describe, expect, it } from "vitest";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { checksumOf, patchContent, replace } from "../support/content-patch.js";

// GET /metrics: Prometheus text from one registry per app, moving with real requests, with label
// values from bounded sets only (route templates, never ids).

const apps: TestApp[] = [];
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

async function app(change?: Parameters<typeof buildTestApp>[0]): Promise<TestApp> {
  const t = await buildTestApp(change);
  apps.push(t);
  return t;
}

async function scrape(t: TestApp): Promise<string> {
  const response = await t.app.inject({ method: "GET", url: "/metrics" });
  expect({ status: response.statusCode, type: response.headers["content-type"] }).toEqual({
    status: 200,
    type: "text/plain; version=0.0.4; charset=utf-8",
  });
  return response.body;
}

/** The sample lines of `body` whose name and labels start with `prefix`, as `labels value`. */
function samples(body: string, name: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const line of body.split("\n")) {
    const match = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match && match[1] === name) found[match[2] ?? ""] = Number(match[3]);
  }
  return found;
}

const TEXT = "alpha\nbeta\ngamma";

describe("GET /metrics", () => {
  it("counts requests, patches by outcome, commits and feed answers, labelled by route templates only", async () => {
    const t = await app();
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    const base = { baseVersion: 1, checksum: checksumOf(TEXT), clientId: "c", displayName: "Ann" };
    expect((await patchContent(t.app, id, { ...base, seq: 1, ops: [replace(0, 1, "ALPHA")] })).statusCode).toBe(200);
    // The same base again: rebased over version 2 (shifted); then its resend (repeat).
    const shifted = { ...base, seq: 2, ops: [replace(2, 1, "GAMMA")] };
    expect((await patchContent(t.app, id, shifted)).statusCode).toBe(200);
    expect((await patchContent(t.app, id, shifted)).statusCode).toBe(200);
    // The same line as version 2 changed: a conflict; a wrong checksum: 422.
    expect((await patchContent(t.app, id, { ...base, seq: 3, ops: [replace(0, 1, "other")] })).statusCode).toBe(409);
    expect((await patchContent(t.app, id, { ...base, seq: 4, checksum: checksumOf("x"), ops: [replace(0, 1, "y")] })).statusCode).toBe(422);
    expect((await t.app.inject({ method: "GET", url: `/api/v1/documents/${id}/changes?since=1&wait=0` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: `/api/v1/documents/${id}/changes?since=3&wait=0` })).statusCode).toBe(204);
    expect((await t.app.inject({ method: "GET", url: `/api/v1/documents/${id}/changes?since=0&wait=0` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: `/no/such/${id}` })).statusCode).toBe(404);

    const body = await scrape(t);
    expect(body).not.toContain(id);
    const route = (method: string, path: string, status: number) => `{method="${method}",route="${path}",status="${status}"}`;
    expect(samples(body, "folio_http_request_duration_seconds_count")).toEqual({
      [route("POST", "/api/v1/documents", 201)]: 1,
      [route("PATCH", "/api/v1/documents/:documentId/content", 200)]: 3,
      [route("PATCH", "/api/v1/documents/:documentId/content", 409)]: 1,
      [route("PATCH", "/api/v1/documents/:documentId/content", 422)]: 1,
      [route("GET", "/api/v1/documents/:documentId/changes", 200)]: 2,
      [route("GET", "/api/v1/documents/:documentId/changes", 204)]: 1,
      [route("GET", "unmatched", 404)]: 1,
    });
    expect(samples(body, "folio_content_patches_total")).toEqual({
      '{outcome="applied"}': 1,
      '{outcome="shifted"}': 1,
      '{outcome="repeat"}': 1,
      '{outcome="conflict"}': 1,
      '{outcome="checksum-mismatch"}': 1,
    });
    expect(samples(body, "folio_feed_answers_total")).toEqual({ '{kind="ops"}': 1, '{kind="none"}': 1, '{kind="content"}': 1 });
    // Three commits changed the document: the creation and the two accepted new versions.
    expect(samples(body, "folio_commit_batch_size_count")).toEqual({ '{store="sqlite"}': 3 });
    expect(samples(body, "folio_commit_duration_seconds_count")).toEqual({ '{store="sqlite"}': 3 });
    expect(samples(body, "folio_feed_waiters")).toEqual({ "": 0 });
    expect(samples(body, "folio_list_locked")).toEqual({ "": 0 });
    const hits = samples(body, "folio_head_cache_hits_total")[""] ?? 0;
    expect(hits).toBeGreaterThan(0);
    expect(samples(body, "folio_head_cache_entries")).toEqual({ "": 1 });
    expect(samples(body, "process_cpu_seconds_total")[""]).toBeGreaterThan(0);
    expect(body).toContain("# TYPE nodejs_eventloop_lag_seconds gauge");
    expect(samples(body, "folio_postgres_listener_connected")).toEqual({});

    // Moving: one more request shows in the next scrape, and the scrape itself from then on.
    expect((await t.app.inject({ method: "POST", url: "/api/v1/documents", payload: { title: "B", content: "b" } })).statusCode).toBe(201);
    const again = await scrape(t);
    expect(samples(again, "folio_http_request_duration_seconds_count")[route("POST", "/api/v1/documents", 201)]).toBe(2);
    expect(samples(again, "folio_http_request_duration_seconds_count")[route("GET", "/metrics", 200)]).toBe(1);
    expect(samples(again, "folio_commit_batch_size_count")).toEqual({ '{store="sqlite"}': 4 });
  });

  it("counts failed list attempts and the lock, and shows the lock as a gauge", async () => {
    const t = await app({ config: (config) => Object.assign(config.masterPassword, { maxFailures: 2, lockSeconds: 60 }) });
    const wrong = { authorization: `Basic ${Buffer.from("admin:wrong").toString("base64")}` };
    expect((await t.app.inject({ method: "GET", url: "/api/v1/documents", headers: wrong })).statusCode).toBe(401);
    expect(samples(await scrape(t), "folio_list_locked")).toEqual({ "": 0 });
    expect((await t.app.inject({ method: "GET", url: "/api/v1/documents", headers: wrong })).statusCode).toBe(401);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/documents", headers: wrong })).statusCode).toBe(429);
    const body = await scrape(t);
    expect(samples(body, "folio_list_failed_attempts_total")).toEqual({ "": 2 });
    expect(samples(body, "folio_list_locks_total")).toEqual({ "": 1 });
    expect(samples(body, "folio_list_locked")).toEqual({ "": 1 });
    t.clock.advance(60_000);
    expect(samples(await scrape(t), "folio_list_locked")).toEqual({ "": 0 });
  });

  it("counts compaction runs and the versions they dropped", async () => {
    const t = await app();
    const id = (await createDocument(t.app, { title: "Notes", content: TEXT })).id;
    for (let seq = 1; seq <= 3; seq++) {
      const head = await t.app.inject({ method: "GET", url: `/api/v1/documents/${id}` });
      const { version, content } = head.json<{ version: number; content: string }>();
      const patched = await patchContent(t.app, id, { baseVersion: version, checksum: checksumOf(content), clientId: "c", seq, ops: [replace(0, 1, `v${seq}`)] });
      expect(patched.statusCode).toBe(200);
    }
    // The schedule's timers run on the manual clock: stopped, so that only the run below counts.
    await t.services.compactor.stop();
    t.clock.advance((t.config.history.retentionSeconds + 1) * 1000);
    await t.services.compactor.runOnce();
    const body = await scrape(t);
    expect(samples(body, "folio_compaction_runs_total")).toEqual({ '{result="ran"}': 1 });
    expect(samples(body, "folio_compaction_versions_total")[""]).toBeGreaterThan(0);
  });

  it("times tracker calls by operation and upstream status, ids and refs left out", async () => {
    const fake = await FakeTaiga.start();
    try {
      fake.addUser({ username: "alice", password: "pw", fullName: "Alice" });
      const t = await app({ config: (config) => Object.assign(config.tracker, { apiUrl: fake.apiUrl, loginType: "normal" }) });
      const login = await t.app.inject({ method: "POST", url: "/api/v1/tracker/auth", payload: { username: "alice", password: "pw" } });
      expect(login.statusCode).toBe(200);
      const token = login.json<{ authToken: string }>().authToken;
      const project = fake.addProject({ name: "Folio", slug: "folio", members: [fake.users[0]!] });
      fake.addStory({ project, subject: "Login page" });
      const read = await t.app.inject({ method: "GET", url: "/api/v1/tracker/userstories/1?slug=folio", headers: { "x-tracker-token": token } });
      expect(read.statusCode).toBe(200);
      expect((await t.app.inject({ method: "POST", url: "/api/v1/tracker/auth", payload: { username: "alice", password: "no" } })).statusCode).toBe(400);
      const counts = samples(await scrape(t), "folio_tracker_call_duration_seconds_count");
      expect(counts).toEqual({
        '{operation="POST /auth",status="200"}': 1,
        '{operation="GET /projects/by_slug",status="200"}': 1,
        '{operation="GET /userstories/by_ref",status="200"}': 1,
        '{operation="POST /auth",status="401"}': 1,
      });
    } finally {
      await fake.close();
    }
  });

  it("is absent with service.metrics.enabled false, and so are the app's observers", async () => {
    const t = await app({ config: (config) => (config.metrics.enabled = false) });
    const response = await t.app.inject({ method: "GET", url: "/metrics" });
    expect(response.statusCode).toBe(404);
    expect(t.services.events.observed).toBe(true); // the list-lock warning still listens
  });
});
