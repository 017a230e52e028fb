import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStoreContract } from "./store-contract.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";

runStoreContract("sqlite :memory:", async () => {
  const store = SqliteStore.open(":memory:");
  return { store, cleanup: () => store.close() };
});

runStoreContract("sqlite file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "folio-store-"));
  const store = SqliteStore.open(join(dir, "nested", "service.db"));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
