import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/storage/open-store.js";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { writeVersionOne } from "../support/store-records.js";
import { POSTGRES_TEST_URL, describePostgres, dropSchema, uniqueSchemaName, withAdminClient } from "../support/postgres.js";

function withSchema(url: string, schema: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}schema=${schema}`;
}

describe("openStore", () => {
  it("opens a SQLite store for sqlite::memory:", async () => {
    const store = await openStore("sqlite::memory:");
    try {
      expect(store).toBeInstanceOf(SqliteStore);
    } finally {
      await store.close();
    }
  });

  it("refuses an unknown scheme before opening anything", async () => {
    await expect(openStore("mysql://h/db")).rejects.toThrow('unknown storage scheme in "mysql:"');
  });
});

describePostgres("openStore with a postgres:// URL", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("migrates the schema named by the schema parameter and keeps its tables there", async () => {
    const schema = uniqueSchemaName();
    cleanups.push(() => dropSchema(schema));
    const store = await openStore(withSchema(POSTGRES_TEST_URL, schema));
    cleanups.push(() => store.close());
    expect(store).toBeInstanceOf(PostgresStore);

    const id = randomUUID();
    await writeVersionOne(store, id);

    const tables = await withAdminClient((client) =>
      client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
        [schema],
      ),
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual(["documents", "list_lock", "patch_receipts", "read_links", "schema_migrations", "snapshots", "versions"]);
    const stored = await withAdminClient((client) => client.query<{ id: string }>(`SELECT id FROM ${schema}.documents`));
    expect(stored.rows).toEqual([{ id }]);
  });

  it("lets two stores opened from the same URL at once see each other's writes", async () => {
    const schema = uniqueSchemaName();
    cleanups.push(() => dropSchema(schema));
    const url = withSchema(POSTGRES_TEST_URL, schema);
    const [first, second] = await Promise.all([openStore(url), openStore(url)]);
    cleanups.push(() => first.close(), () => second.close());

    const id = randomUUID();
    await writeVersionOne(first, id);
    expect((await second.reads(id).document())?.version).toBe(1);
  });

  it("refuses a schema parameter that is not a lower-case identifier without connecting", async () => {
    await expect(openStore(withSchema(POSTGRES_TEST_URL, "Bad"))).rejects.toThrow('schema "Bad" is not a lower-case identifier');
  });
});
