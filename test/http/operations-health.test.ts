import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { postgresBehindRelay } from "../support/cuttable-relay.js";
import { JSON_TYPE, PROBLEM_TYPE } from "../support/http-expect.js";
import { describePostgres } from "../support/postgres.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { waitUntil } from "../support/wait-until.js";

// /health/live answers while the process runs; /health/ready only while the store answers a query
// (and, on PostgreSQL, the LISTEN connection is up) and the instance is not shutting down.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function expectNotReady(response: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, detail: string): void {
  expect({ status: response.statusCode, type: response.headers["content-type"], retryAfter: response.headers["retry-after"], body: response.json() }).toEqual({
    status: 503,
    type: PROBLEM_TYPE,
    retryAfter: "5",
    body: { type: "urn:folio:problem:storage-unavailable", title: "Storage unavailable", status: 503, detail, instance: "/health/ready" },
  });
}

describe("health probes", () => {
  it("answer 200 live and ready on a working store", async () => {
    const t = await buildTestApp();
    cleanups.push(() => t.close());
    const live = await t.app.inject({ method: "GET", url: "/health/live" });
    expect({ status: live.statusCode, type: live.headers["content-type"], body: live.json<unknown>() }).toEqual({ status: 200, type: JSON_TYPE, body: { status: "live" } });
    const ready = await t.app.inject({ method: "GET", url: "/health/ready" });
    expect({ status: ready.statusCode, type: ready.headers["content-type"], body: ready.json<unknown>() }).toEqual({ status: 200, type: JSON_TYPE, body: { status: "ready" } });
  });

  it("are left out of the OpenAPI document", async () => {
    const t = await buildTestApp();
    cleanups.push(() => t.close());
    const paths = Object.keys((await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json<{ paths: object }>().paths);
    expect(paths.filter((path) => /health|metrics/.test(path))).toEqual([]);
  });

  it("go not ready when the SQLite store fails, while liveness stays 200", async () => {
    const store = SqliteStore.open(":memory:");
    const t = await buildTestApp({ store });
    cleanups.push(() => t.close());
    expect((await t.app.inject({ method: "GET", url: "/health/ready" })).statusCode).toBe(200);
    // The connection gone under the store: every statement fails, as on a file that cannot be read.
    store.database.close();
    expectNotReady(await t.app.inject({ method: "GET", url: "/health/ready" }), "the store cannot serve now");
    expect((await t.app.inject({ method: "GET", url: "/health/live" })).statusCode).toBe(200);
  });

  it("answers a request that arrives during shutdown with a 503 problem and Connection: close, the readiness probe included", async () => {
    const t = await buildTestApp();
    let closed = false;
    cleanups.push(() => (closed ? undefined : t.close()));
    const address = await t.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = new URL(address);
    // The shutdown is held inside its preClose hooks (the feed's quiesce) until the probe has its
    // answer: the listener still accepts, and the instance already refuses.
    let probed: () => void = () => undefined;
    const probeDone = new Promise<void>((resolve) => (probed = resolve));
    let quiescing: () => void = () => undefined;
    const shutdownBegun = new Promise<void>((resolve) => (quiescing = resolve));
    const quiesce = t.services.quiesce.bind(t.services);
    // The app's preClose hook returns what quiesce returns, so a promise here holds the shutdown.
    const services: { quiesce: () => unknown } = t.services;
    services.quiesce = async () => {
      quiescing();
      await probeDone;
      return quiesce();
    };
    const closing = t.app.close();
    closed = true;
    await shutdownBegun;

    const socket = connect({ port: Number(port), host: "127.0.0.1" });
    cleanups.push(() => void socket.destroy());
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")));
    const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write("GET /health/ready HTTP/1.1\r\nHost: folio\r\n\r\n");
    await ended;
    probed();
    await closing;

    expect(received.split("\r\n")[0]).toBe("HTTP/1.1 503 Service Unavailable");
    expect(received).toMatch(/\r\nconnection: close\r\n/i);
    expect(received).toMatch(/\r\ncontent-type: application\/problem\+json; charset=utf-8\r\n/i);
    expect(received).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4))).toEqual({
      type: "urn:folio:problem:shutting-down",
      title: "Shutting down",
      status: 503,
      detail: "this instance is shutting down; retry",
      instance: "/health/ready",
    });
  });
});

describePostgres("readiness on PostgreSQL", () => {
  it("goes 503 when the database becomes unreachable, while liveness stays 200", async () => {
    const { store, cut, cleanup } = await postgresBehindRelay();
    cleanups.push(cleanup);
    const t: TestApp = await buildTestApp({ store });
    cleanups.push(() => t.close().catch(() => undefined));
    expect((await t.app.inject({ method: "GET", url: "/health/ready" })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "POST", url: "/api/v1/documents", payload: { title: "Plan", content: "a" } })).statusCode).toBe(201);
    const metrics = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toContain('\nfolio_commit_batch_size_count{store="postgres"} 1\n');
    expect(metrics).toContain("\nfolio_postgres_listener_connected 1\n");
    expect(metrics).toContain("\nfolio_postgres_listener_reconnects_total 0\n");

    await cut();

    expectNotReady(await t.app.inject({ method: "GET", url: "/health/ready" }), "the store cannot serve now");
    expect((await t.app.inject({ method: "GET", url: "/health/live" })).statusCode).toBe(200);
    // The LISTEN connection's loss is noticed when its socket closes, which may come after the
    // pooled connection's failure that made the probe answer 503.
    expect(await waitUntil(() => store.listenerPid() === undefined, { maxMs: 5_000 })).toBe(true);
    expect((await t.app.inject({ method: "GET", url: "/metrics" })).body).toContain("\nfolio_postgres_listener_connected 0\n");
  });
});
