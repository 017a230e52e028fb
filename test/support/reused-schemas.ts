import pg from "pg";
import { afterAll } from "vitest";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { POSTGRES_TEST_URL, openTestStore, uniqueSchemaName, withAdminClient } from "./postgres.js";

// Creating and migrating a schema, then dropping it, costs about a quarter of a second, more than
// most HTTP tests themselves. Within one test file, a closed test app's schema is emptied and
// handed to the next app instead; the file's schemas are dropped when it ends. Nothing crosses
// files: each file (and so each run) still has schemas of its own.
const idle: string[] = [];
/** Schemas of stores not disposed yet; dropped with the idle ones, so that a store closed directly leaves nothing behind. */
const inUse = new Set<string>();
let reusing = false;
/** Set once the file's schemas were dropped: a store closed later (a test that outlived its timeout) drops its own. */
let fileEnded = false;

/** Turns reuse on for the current test file and drops its schemas after it (the postgres project's setup file calls this). */
export function reuseSchemasWithinFile(): void {
  if (reusing) return;
  reusing = true;
  afterAll(async () => {
    fileEnded = true;
    const schemas = [...idle.splice(0), ...inUse];
    inUse.clear();
    if (schemas.length === 0) return;
    await withAdminClient((client) => client.query(`DROP SCHEMA IF EXISTS ${schemas.map((name) => pg.escapeIdentifier(name)).join(", ")} CASCADE`));
  });
}

/** A PostgreSQL store on a migrated schema that holds no data; `dispose` closes it and gives up the schema. */
export async function openEmptyPostgresStore(): Promise<{ store: PostgresStore; dispose: () => Promise<void> }> {
  if (!reusing) {
    const { store, cleanup } = await openTestStore();
    return { store, dispose: cleanup };
  }
  const schema = idle.pop() ?? uniqueSchemaName();
  inUse.add(schema);
  let store: PostgresStore;
  try {
    store = await PostgresStore.open(POSTGRES_TEST_URL, { schema });
  } catch (error) {
    inUse.delete(schema);
    await dropSchemaQuietly(schema);
    throw error;
  }
  return {
    store,
    dispose: async () => {
      await store.close();
      if (!inUse.delete(schema)) return;
      try {
        if (fileEnded) throw new Error("the file's schemas are gone");
        await emptySchema(schema);
        if (fileEnded) throw new Error("the file's schemas are gone");
        idle.push(schema);
      } catch {
        await dropSchemaQuietly(schema);
      }
    },
  };
}

/**
 * Deletes every row a test can have written and puts the list lock back to its initial state:
 * what a fresh migration leaves. Tables a later migration adds are emptied too; only the
 * migration record and the seeded list lock row are kept.
 */
async function emptySchema(schema: string): Promise<void> {
  await withAdminClient(async (client) => {
    const { rows } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
      [schema],
    );
    const quoted = pg.escapeIdentifier(schema);
    const statements = rows
      .map((row) => row.name)
      .filter((name) => name !== "schema_migrations" && name !== "list_lock")
      .map((name) => `DELETE FROM ${quoted}.${pg.escapeIdentifier(name)};`);
    statements.push(`UPDATE ${quoted}.list_lock SET failures = 0, locked_until = 0;`);
    await client.query(`BEGIN; ${statements.join(" ")} COMMIT;`);
  });
}

async function dropSchemaQuietly(schema: string): Promise<void> {
  await withAdminClient((client) => client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`)).catch(() => {});
}
