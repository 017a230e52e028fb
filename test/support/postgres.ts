import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe, it } from "vitest";
import { PostgresStore, type PostgresStoreOptions } from "../../src/storage/postgres/postgres-store.js";
import { CI_IS_SET } from "./ci.js";

/** The test server: `FOLIO_TEST_PG_URL`, else the local trust-auth cluster. */
export const POSTGRES_TEST_URL = process.env.FOLIO_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<unparseable FOLIO_TEST_PG_URL>";
  }
}

/** Why PostgreSQL cannot be used, or `undefined` when it answers. */
async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const unreachable = await probe();

export { CI_IS_SET };

/** Why the test PostgreSQL cannot be used (probed once per test file), or `undefined` when it answers. */
export function postgresUnreachable(): string | undefined {
  return unreachable === undefined ? undefined : `PostgreSQL at ${redacted(POSTGRES_TEST_URL)} is unreachable (${unreachable})`;
}

/**
 * `describe` for suites that need PostgreSQL. Unreachable: skipped with a console message, or,
 * when `CI` is set, a failing test that says why, so that CI never passes without them.
 */
export function describePostgres(name: string, body: () => void): void {
  const message = postgresUnreachable();
  if (message === undefined) {
    describe(name, body);
    return;
  }
  if (CI_IS_SET) {
    describe(name, () => {
      it("needs a reachable PostgreSQL because CI is set", () => {
        throw new Error(`${message}. CI is set, so the PostgreSQL suites must run: start it or set FOLIO_TEST_PG_URL.`);
      });
    });
    return;
  }
  console.warn(`${message}: skipping "${name}". Set FOLIO_TEST_PG_URL, or CI to make this a failure.`);
  describe.skip(name, body);
}

/** A schema name no other test file or run uses: lower case, well under 63 bytes. */
export function uniqueSchemaName(): string {
  return `folio_test_${process.pid}_${randomBytes(6).toString("hex")}`;
}

/** Runs `work` on a short-lived connection outside any store (no search_path set). */
export async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Makes the server end the connection of any transaction that inserts a version titled `title` into
 * `schema`. The title goes as a parameter into a table the trigger reads, never into its SQL.
 */
export async function endConnectionOnTitle(schema: string, title: string): Promise<void> {
  await withAdminClient(async (client) => {
    await client.query(`SET search_path = ${pg.escapeIdentifier(schema)}`);
    await client.query("CREATE TABLE end_connection_titles (title bytea NOT NULL)");
    await client.query("INSERT INTO end_connection_titles (title) VALUES ($1)", [Buffer.from(title, "utf8")]);
    await client.query(`CREATE FUNCTION end_connection() RETURNS trigger AS $f$ BEGIN
        IF NEW.title IN (SELECT title FROM end_connection_titles) THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
        RETURN NEW;
      END $f$ LANGUAGE plpgsql`);
    await client.query("CREATE TRIGGER end_connection BEFORE INSERT ON versions FOR EACH ROW EXECUTE FUNCTION end_connection()");
  });
}

export async function dropSchema(schema: string): Promise<void> {
  await withAdminClient((client) => client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`));
}

/** A fresh, uniquely named schema with a store on it; `cleanup` closes the store and drops the schema. */
export async function openTestStore(
  options: Omit<PostgresStoreOptions, "schema"> = {},
): Promise<{ store: PostgresStore; schema: string; cleanup: () => Promise<void> }> {
  const schema = uniqueSchemaName();
  try {
    const store = await PostgresStore.open(POSTGRES_TEST_URL, { ...options, schema });
    return {
      store,
      schema,
      cleanup: async () => {
        await store.close();
        await dropSchema(schema);
      },
    };
  } catch (error) {
    await dropSchema(schema);
    throw error;
  }
}

/** Opens a store on a fresh schema for each test of the enclosing describe; closed and dropped after it. */
export function storePerTest(): (options?: Parameters<typeof openTestStore>[0]) => ReturnType<typeof openTestStore> {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });
  return async (options) => {
    const fixture = await openTestStore(options);
    cleanup = fixture.cleanup;
    return fixture;
  };
}
