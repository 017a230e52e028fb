import type { Store } from "./store.js";
import { SqliteStore } from "./sqlite/sqlite-store.js";
import { parseStorageUrl } from "./storage-url.js";

export interface OpenStoreOptions {
  /** Connection trouble a PostgreSQL store recovers from by itself (a lost LISTEN connection, a broken idle client). */
  onError?: (error: Error) => void;
}

/**
 * Opens the store named by a storage URL: `sqlite:<path>`, `sqlite::memory:`, or
 * `postgres://…?schema=<name>` (schema `public` when not given). A PostgreSQL store migrates its
 * schema before this resolves; instances starting together serialize on an advisory lock.
 */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStorageUrl(url);
  if (location.kind === "sqlite") return SqliteStore.open(location.path);
  const { PostgresStore } = await import("./postgres/postgres-store.js");
  return PostgresStore.open(location.connectionString, { schema: location.schema, ...(options.onError ? { onError: options.onError } : {}) });
}
