import pg from "pg";
import { CHANGE_TYPES } from "../../core/change-types.js";
import { pendingMigrations } from "../migration-runner.js";
import { inTransaction } from "./postgres-transaction.js";

// Versions, times and seq are bigint (times in epoch ms, as the contract carries them). Strings a
// client controls (titles, texts, clientId, displayName) are UTF-8 `bytea` so that U+0000 survives;
// ops are JSON in `text`, never `jsonb`, which rejects \u0000. The change-type CHECK is generated
// from the one list; it yields the text migration 1 always had, so a new change type needs a new
// migration that replaces the constraint.
const MIGRATIONS: readonly string[] = [
  `
      CREATE TABLE documents (
        id uuid PRIMARY KEY,
        title bytea NOT NULL,
        version bigint NOT NULL,
        deleted boolean NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        checksum text NOT NULL
      );
      CREATE INDEX documents_live_by_creation ON documents (created_at, id) WHERE NOT deleted;

      CREATE TABLE versions (
        document_id uuid NOT NULL,
        version bigint NOT NULL CHECK (version >= 1),
        change_type text NOT NULL
          CHECK (change_type IN (${CHANGE_TYPES.map((type) => `'${type}'`).join(", ")})),
        milestone boolean NOT NULL,
        created_at bigint NOT NULL,
        client_id bytea,
        display_name bytea,
        title bytea NOT NULL,
        ops text,
        checksum text NOT NULL,
        text bytea,
        PRIMARY KEY (document_id, version)
      );
      CREATE INDEX versions_milestones ON versions (document_id, version) WHERE milestone;
      CREATE INDEX versions_compactable_by_creation ON versions (created_at)
        WHERE NOT milestone AND ops IS NOT NULL;

      CREATE TABLE snapshots (
        document_id uuid PRIMARY KEY,
        version bigint NOT NULL,
        text bytea NOT NULL
      );

      CREATE TABLE patch_receipts (
        document_id uuid NOT NULL,
        client_id bytea NOT NULL,
        seq bigint NOT NULL,
        request_hash text NOT NULL,
        version bigint NOT NULL,
        ops_since_base text NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (document_id, client_id, seq)
      );
      CREATE INDEX patch_receipts_by_creation ON patch_receipts (created_at);

      CREATE TABLE list_lock (
        id smallint PRIMARY KEY CHECK (id = 1),
        failures integer NOT NULL,
        locked_until bigint NOT NULL
      );
      INSERT INTO list_lock (id, failures, locked_until) VALUES (1, 0, 0);
    `,
  // A receipt may keep, instead of its ops, the versions its patch was shifted over: a repeat
  // composes the answer from them again, and compaction keeps their ops while the receipt lives
  // (docs/architecture.md, "Receipts"). The index serves compaction's check for such receipts.
  `
      ALTER TABLE patch_receipts ADD COLUMN shifted_base bigint, ADD COLUMN shifted_through bigint;
      CREATE INDEX patch_receipts_by_shifted_base ON patch_receipts (document_id, shifted_base) WHERE shifted_base IS NOT NULL;
    `,
  // Read-only links (docs/sharing.md): at most one per document; the UNIQUE constraint is the index
  // every request under /read/ looks its link up by. No foreign key to documents: its check would
  // take a share lock on the document's row and so wait for every write transaction holding it;
  // the statement that writes a link checks the document itself (postgres-read-links.ts).
  `
      CREATE TABLE read_links (
        document_id uuid PRIMARY KEY,
        read_id uuid NOT NULL UNIQUE,
        created_at bigint NOT NULL
      );
    `,
];

/** The advisory-lock class of migrations; the second key is the schema's hash. */
const MIGRATION_LOCK_CLASS = 0x466f0001;

/**
 * Brings the schema up to the newest migration. Concurrent callers (instances starting together)
 * serialize on an advisory lock taken inside the migration transaction, so exactly one applies
 * each version and the others find it recorded.
 */
export async function migrate(pool: pg.Pool, schema: string | undefined): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext(coalesce($2::text, current_schema(), '')))", [
      MIGRATION_LOCK_CLASS,
      schema ?? null,
    ]);
    if (schema !== undefined) {
      // Checked before creating: CREATE SCHEMA IF NOT EXISTS still needs the CREATE privilege on the database.
      const existing = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      if (existing.rowCount === 0) await client.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`);
      await client.query(`SET LOCAL search_path TO ${pg.escapeIdentifier(schema)}`);
    }
    await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
    const { rows } = await client.query<{ version: number }>("SELECT version FROM schema_migrations");
    for (const { version, sql } of pendingMigrations(MIGRATIONS, rows.map((row) => row.version))) {
      await client.query(sql);
      await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [version]);
    }
  });
}
