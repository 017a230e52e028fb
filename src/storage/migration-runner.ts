// Which migrations a database still needs: the one rule of both adapters' migration runs. Each
// adapter frames the run in its own transaction (PostgreSQL also under an advisory lock, so that
// instances starting together apply each migration once) and records what it applied.

/** A migration to apply: its number (1-based, its place in the list) and its SQL. */
export interface PendingMigration {
  version: number;
  sql: string;
}

/**
 * The migrations not yet applied, in order; migration N is `migrations[N - 1]`. A released
 * migration is never edited: a change to the schema is a new entry at the end.
 */
export function pendingMigrations(migrations: readonly string[], applied: Iterable<number>): PendingMigration[] {
  const done = new Set(applied);
  return migrations.map((sql, index) => ({ version: index + 1, sql })).filter((migration) => !done.has(migration.version));
}
