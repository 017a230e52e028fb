import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { describePostgres } from "../support/postgres.js";
import { postgresBehindRelay } from "../support/cuttable-relay.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";

// A database that cannot serve for a reason outside the request is a 503 with Retry-After, so that
// clients and load balancers retry: never a 500, and never a lost acknowledged version.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function expectUnavailable(response: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, instance: string): void {
  expect({ status: response.statusCode, type: response.headers["content-type"], retryAfter: response.headers["retry-after"] }).toEqual({
    status: 503,
    type: "application/problem+json; charset=utf-8",
    retryAfter: "5",
  });
  expect(response.json()).toEqual({
    type: "urn:folio:problem:storage-unavailable",
    title: "Storage unavailable",
    status: 503,
    detail: "the database cannot serve now; retry shortly",
    instance,
  });
}

describe("a SQLite file that another process keeps locked", () => {
  it("answers 503 with Retry-After while the lock outlasts the wait, and writes once it is gone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "folio-busy-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "service.db");
    const t: TestApp = await buildTestApp({ store: SqliteStore.open(path, { busyTimeoutMs: 50 }) });
    cleanups.push(() => t.close());
    const other = new BetterSqlite3(path);
    cleanups.push(() => void other.close());

    other.exec("BEGIN EXCLUSIVE");
    const refused = await t.app.inject({ method: "POST", url: "/api/v1/documents", payload: { title: "Plan", content: "a" } });
    expectUnavailable(refused, "/api/v1/documents");
    other.exec("ROLLBACK");

    const created = await t.app.inject({ method: "POST", url: "/api/v1/documents", payload: { title: "Plan", content: "a" } });
    expect(created.statusCode).toBe(201);
    expect(created.json<{ version: number }>().version).toBe(1);
  });
});

describePostgres("a PostgreSQL database that becomes unreachable", () => {
  it("answers 503 with Retry-After for reads and writes, never 500", async () => {
    const { store, cut, cleanup } = await postgresBehindRelay();
    cleanups.push(cleanup);
    const t: TestApp = await buildTestApp({ store });
    cleanups.push(() => t.close().catch(() => undefined));
    const created = await t.app.inject({ method: "POST", url: "/api/v1/documents", payload: { title: "Plan", content: "a" } });
    const id = created.json<{ id: string }>().id;

    await cut();

    const url = `/api/v1/documents/${id}`;
    expectUnavailable(await t.app.inject({ method: "GET", url }), url);
    expectUnavailable(await t.app.inject({ method: "PUT", url, payload: { title: "Plan", content: "b" } }), url);
  });
});
