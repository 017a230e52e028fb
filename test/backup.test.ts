import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import { checksumOf, insert } from "./support/content-patch.js";
import { startProcess, type ServerProcess, processesPerTest } from "./support/server-process.js";
import { buildTestApp } from "./support/test-app.js";

// `npm run backup -- <file>` copies the SQLite store online, while the service writes: the copy
// opens on its own and holds every patch acknowledged before the backup began.

const STARTUP_MS = 20_000;
const SQLITE3 = "/usr/bin/sqlite3";
const MAX_PATCHES = 3000;
const MAX_WRITE_MS = 15_000;

const work = processesPerTest("folio-backup-");

/** The backup CLI as `npm run backup -- <target>` runs it, with exactly `env`. */
function backupProcess(env: Record<string, string>, target?: string): ServerProcess {
  const child = startProcess("src/cli/backup.ts", env, work.dir, target === undefined ? [] : [target]);
  work.track(child);
  return child;
}

describe("npm run backup", () => {
  it("copies the store while patches are written, holding every patch acknowledged before it began", async () => {
    const env = { SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: `sqlite:${join(work.dir, "service.db")}`, LOG_LEVEL: "warn" };
    // One writer patches as fast as it can: on a quiet machine that passes the per-address write
    // limit (200 a second), which is not what this test is about.
    const server = startProcess("src/server.ts", { ...env, LOG_LEVEL: "info", SERVICE_RATE_LIMIT_WRITES_PER_SECOND: "0" }, work.dir);
    work.track(server);
    const address = String((await server.waitForLine((line) => line.msg.startsWith("listening on "), STARTUP_MS)).address);
    const created = await fetch(`${address}/api/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Log", content: "start" }) });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;

    // One writer appends a line per patch; every acknowledged version and its text are kept.
    const texts = new Map<number, string>([[1, "start"]]);
    let version = 1;
    let text = "start";
    let stop = false;
    let reachedStart: () => void = () => undefined;
    const enough = new Promise<void>((resolve) => (reachedStart = resolve));
    const writing = (async () => {
      const began = Date.now();
      for (let seq = 1; seq <= MAX_PATCHES && !stop && Date.now() - began < MAX_WRITE_MS; seq++) {
        const lines = text.split("\n");
        const body = { baseVersion: version, checksum: checksumOf(text), clientId: "writer", seq, ops: [insert(lines.length, `line ${seq}`)] };
        const response = await fetch(`${address}/api/v1/documents/${id}/content`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        expect(response.status).toBe(200);
        version = ((await response.json()) as { version: number }).version;
        text = `${text}\nline ${seq}`;
        texts.set(version, text);
        if (seq === 50) reachedStart();
      }
      reachedStart();
    })();

    await enough;
    const acknowledgedAtStart = version;
    const target = join(work.dir, "backup.db");
    const run = backupProcess(env, target);
    const exit = await run.waitForExit(STARTUP_MS);
    stop = true;
    await writing;
    expect({ exit, stderr: run.rawOutput().includes("backup failed") }).toEqual({ exit: { code: 0, signal: null }, stderr: false });
    // The report is one JSON line on stdout.
    expect(run.lines.map((line) => ({ backup: line.backup, documents: line.documents }))).toEqual([{ backup: target, documents: 1 }]);
    expect(existsSync(`${target}-wal`)).toBe(false);
    expect(existsSync(`${target}.partial`)).toBe(false);
    expect(version).toBeGreaterThan(acknowledgedAtStart);

    // The sqlite3 tool's own online backup works beside the running service too (where it is installed).
    if (existsSync(SQLITE3)) {
      const external = join(work.dir, "external.db");
      execFileSync(SQLITE3, [join(work.dir, "service.db"), `.backup ${external}`], { timeout: 10_000 });
      expect(execFileSync(SQLITE3, [external, "SELECT count(*) FROM documents"], { encoding: "utf8" }).trim()).toBe("1");
    }

    // The copy opens on its own, as the service would open a restored file.
    const restored = await buildTestApp({ store: SqliteStore.open(target) });
    try {
      const read = await restored.app.inject({ method: "GET", url: `/api/v1/documents/${id}` });
      const copy = read.json<{ version: number; content: string }>();
      expect(copy.version).toBeGreaterThanOrEqual(acknowledgedAtStart);
      // One consistent state: exactly the text acknowledged for the version it holds.
      expect(copy.content).toBe(texts.get(copy.version));
    } finally {
      await restored.close();
    }
  });

  it("refuses a PostgreSQL store, pointing to pg_dump, and a missing file argument", async () => {
    const postgres = backupProcess({ SERVICE_STORAGE_URL: "postgres://folio@127.0.0.1:1/folio" }, join(work.dir, "b.db"));
    expect(await postgres.waitForExit(STARTUP_MS)).toEqual({ code: 2, signal: null });
    expect(postgres.rawOutput()).toBe("the store is PostgreSQL: back it up with pg_dump (see docs/operations.md, Backups)\n");
    const bare = backupProcess({ SERVICE_STORAGE_URL: `sqlite:${join(work.dir, "service.db")}` });
    expect(await bare.waitForExit(STARTUP_MS)).toEqual({ code: 2, signal: null });
    expect(bare.rawOutput()).toBe("usage: npm run backup -- <file>\n");
  });
});
