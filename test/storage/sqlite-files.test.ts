import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { backupSqlite } from "../../src/storage/sqlite/sqlite-backup.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { StorageUnusableError } from "../../src/storage/store.js";
import { writeVersionOne, ID } from "../support/store-records.js";

// The files of a SQLite store (docs/operations.md, "Backups"): every document is in them, so what
// the service creates is its user's alone, and what it cannot write is named in one line.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "folio-files-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe("a SQLite store's files", () => {
  it("are created 0600 in a directory created 0700: the database, its WAL and shared memory, the lock file, and a backup", async () => {
    const path = join(dir, "data", "service.db");
    const store = SqliteStore.open(path);
    try {
      await writeVersionOne(store, ID);
      const files = readdirSync(join(dir, "data")).sort();
      expect(files).toEqual(["service.db", "service.db-shm", "service.db-wal", "service.db.lock"]);
      expect(files.map((file) => [file, mode(join(dir, "data", file)).toString(8)])).toEqual(files.map((file) => [file, "600"]));
      expect(mode(join(dir, "data")).toString(8)).toBe("700");
      const backup = join(dir, "backup.db");
      await backupSqlite(path, backup);
      expect(mode(backup).toString(8)).toBe("600");
    } finally {
      await store.close();
    }
  });

  it("refuse to open where a file cannot be made, naming the path and the user", () => {
    writeFileSync(join(dir, "not-a-directory"), "");
    const path = join(dir, "not-a-directory", "service.db");
    expect(() => SqliteStore.open(path)).toThrow(StorageUnusableError);
    expect(() => SqliteStore.open(path)).toThrow(
      new RegExp(`^cannot create the directory ${join(dir, "not-a-directory")} as user ${process.getuid?.()} \\(group ${process.getgid?.()}\\): E[A-Z]+; give that user`),
    );
  });
});
