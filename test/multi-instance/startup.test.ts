import { afterEach, expect, it } from "vitest";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import type { DocumentJson } from "../support/http-expect.js";
import { describePostgres, withAdminClient } from "../support/postgres.js";
import { TEST_STORE_KIND, buildTestApp, type TestApp } from "../support/test-app.js";
import { Cluster, DOCUMENTS } from "./instances.js";

describePostgres("instances starting on one PostgreSQL schema", () => {
  let cluster: Cluster | undefined;
  let testApp: TestApp | undefined;

  afterEach(async () => {
    await cluster?.close();
    await testApp?.close();
    cluster = undefined;
    testApp = undefined;
  });

  it("starts two instances at once on a fresh schema: both migrate once, answer /info, and serve each other's documents", async () => {
    cluster = await Cluster.start(2);
    const { a, b } = cluster;

    const infos = await Promise.all([a, b].map((instance) => cluster!.request(instance, "GET", "/api/v1/info")));
    expect(infos.map((answer) => ({ status: answer.status, body: answer.body }))).toEqual([
      { status: 200, body: { name: "folio", version: "0.1.0", tracker: false } },
      { status: 200, body: { name: "folio", version: "0.1.0", tracker: false } },
    ]);
    const applied = await withAdminClient((client) =>
      client.query<{ version: number }>(`SELECT version FROM ${cluster!.schema}.schema_migrations ORDER BY version`),
    );
    expect(applied.rows.map((row) => row.version)).toEqual([1, 2, 3]);

    const created = await cluster.request(b, "POST", DOCUMENTS, { body: { title: "Plan", content: "one\ntwo" } });
    expect(created.status).toBe(201);
    const read = await cluster.request(a, "GET", `${DOCUMENTS}/${(created.body as DocumentJson).id}`);
    expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: created.body });
  });

  it("runs the postgres project's HTTP suites on PostgreSQL: buildTestApp gives each app an empty schema of its own", async () => {
    expect(TEST_STORE_KIND).toBe("postgres");
    testApp = await buildTestApp();
    expect(testApp.store).toBeInstanceOf(PostgresStore);
    const created = await testApp.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "Left behind", content: "x" } });
    expect(created.statusCode).toBe(201);
    await testApp.close();

    testApp = await buildTestApp();
    expect(await testApp.store.listDocuments()).toEqual([]);
    expect(await testApp.store.getListLock()).toEqual({ failures: 0, lockedUntil: 0 });
  });
});
