import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import { StorageInUseError } from "../src/storage/store.js";
import { REPO_ROOT, startProcess, type ServerProcess, processesPerTest } from "./support/server-process.js";

// One process per SQLite file (docs/sqlite-single-process.md): each process has its own write
// queue and caches, so a second one on the same file must be refused, while an online backup from
// outside keeps working.

const STARTUP_MS = 20_000;

const work = processesPerTest("folio-single-");

function start(path: string): ServerProcess {
  const server = startProcess("src/server.ts", { SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: `sqlite:${path}`, LOG_LEVEL: "info" }, work.dir);
  work.track(server);
  return server;
}

async function listening(server: ServerProcess): Promise<URL> {
  return new URL(String((await server.waitForLine((line) => line.msg.startsWith("listening on "), STARTUP_MS)).address));
}

async function createDocument(address: URL, title: string): Promise<string> {
  const response = await fetch(new URL("/api/v1/documents", address), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title, content: "text" }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe("one process per SQLite file", () => {
  it("refuses a second process with one line naming the file; the first keeps serving, and an online backup works", async () => {
    const path = join(work.dir, "service.db");
    const first = start(path);
    const address = await listening(first);
    const before = await createDocument(address, "Before");

    const second = start(path);
    expect(await second.waitForExit(STARTUP_MS)).toEqual({ code: 3, signal: null });
    expect(second.lines).toEqual([]);
    expect(second.rawOutput()).toBe(`storage in use: ${path} is in use by another process (it holds ${path}.lock); one process per SQLite file\n`);

    const after = await createDocument(address, "After");
    const read = await fetch(new URL(`/api/v1/documents/${before}`, address));
    expect(read.status).toBe(200);

    // An online backup from another process while the service runs (what `sqlite3 FILE ".backup …"` does).
    const copy = join(work.dir, "backup.db");
    const script = `import Database from "better-sqlite3"; const db = new Database(${JSON.stringify(path)}, { readonly: true }); await db.backup(${JSON.stringify(copy)}); db.close();`;
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: REPO_ROOT, timeout: STARTUP_MS });
    const backup = new BetterSqlite3(copy, { readonly: true });
    try {
      const titles = backup.prepare("SELECT title FROM documents WHERE id IN (?, ?) ORDER BY title").all(before, after);
      expect(titles).toEqual([{ title: "After" }, { title: "Before" }]);
    } finally {
      backup.close();
    }

    // The service still writes after the backup.
    await createDocument(address, "Later");
  });

  it("lets the next process start at once after the holder was killed with SIGKILL", async () => {
    const path = join(work.dir, "service.db");
    const first = start(path);
    await listening(first);
    first.child.kill("SIGKILL");
    expect(await first.waitForExit(STARTUP_MS)).toEqual({ code: null, signal: "SIGKILL" });

    const next = start(path);
    await createDocument(await listening(next), "Next");
  });

  it("refuses a second store on the file within one process too, and frees the file on close", async () => {
    const path = join(work.dir, "service.db");
    const store = SqliteStore.open(path);
    expect(() => SqliteStore.open(path)).toThrow(StorageInUseError);
    await store.close();

    const again = SqliteStore.open(path);
    await again.close();
    // The lock file is the only sidecar the lock adds.
    expect(readdirSync(work.dir).sort()).toEqual(["service.db", "service.db.lock"]);
    // :memory: needs no lock: any number of in-memory stores live side by side.
    const memories = [SqliteStore.open(":memory:"), SqliteStore.open(":memory:")];
    await Promise.all(memories.map((memory) => memory.close()));
  });
});
