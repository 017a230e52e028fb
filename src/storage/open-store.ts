import type { Store } from "./store.js";
import { SqliteStore } from "./sqlite/sqlite-store.js";

/** Opens the store named by a storage URL (`sqlite:<path>`, `sqlite::memory:`, `postgres://…`). */
export async function openStore(url: string): Promise<Store> {
  if (url.startsWith("sqlite:")) return SqliteStore.open(url.slice("sqlite:".length));
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    const { PostgresStore } = await import("./postgres/postgres-store.js");
    return PostgresStore.open(url);
  }
  throw new Error(`unknown storage scheme in ${url.split(":")[0]}:`);
}
