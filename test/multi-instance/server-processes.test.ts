import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { checksum } from "../support/http-expect.js";
import { POSTGRES_TEST_URL, describePostgres, dropSchema, uniqueSchemaName, withAdminClient } from "../support/postgres.js";
import { startProcess, type ServerProcess } from "../support/server-process.js";

// The service as it is deployed: two processes of src/server.ts on one database, configured only
// by a postgres:// storage URL that carries a password and a schema.

const STARTUP_MS = 30_000;
const PASSWORD = "hunter2-not-logged";

let dir: string;
let schema: string;
let processes: ServerProcess[] = [];

/** The test server's URL with a password (trust authentication never asks for it) and the schema. */
function storageUrl(): string {
  const url = new URL(POSTGRES_TEST_URL);
  url.password = PASSWORD;
  url.searchParams.set("schema", schema);
  return url.toString();
}

async function startServer(): Promise<{ server: ServerProcess; origin: string }> {
  const server = startProcess(
    "src/server.ts",
    { SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: storageUrl(), LOG_LEVEL: "debug" },
    dir,
  );
  processes.push(server);
  const listening = await server.waitForLine((line) => line.msg.startsWith("listening on "), STARTUP_MS);
  return { server, origin: String(listening.address) };
}

async function call(origin: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${origin}/api/v1${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? "" : (JSON.parse(text) as unknown) };
}

describePostgres("two service processes on one PostgreSQL schema", () => {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "folio-processes-"));
    schema = uniqueSchemaName();
  });

  afterEach(async () => {
    for (const server of processes) server.kill();
    await Promise.allSettled(processes.map((server) => server.waitForExit(5_000)));
    processes = [];
    rmSync(dir, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it(
    "start together from a postgres:// URL with ?schema=, answer a long poll on one with a patch made through the other, log no password and exit 0 on SIGTERM",
    async () => {
      const [first, second] = await Promise.all([startServer(), startServer()]);

      const tables = await withAdminClient((client) =>
        client.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [schema]),
      );
      expect(tables.rows.map((row) => row.name)).toEqual(["documents", "list_lock", "patch_receipts", "read_links", "schema_migrations", "snapshots", "versions"]);

      const created = await call(first.origin, "POST", "/documents", { title: "Plan", content: "a" });
      expect(created.status).toBe(201);
      const id = (created.body as { id: string }).id;
      const polling = call(second.origin, "GET", `/documents/${id}/changes?since=1&wait=10`);
      // Patch once the second process has the poll. Should the commit still beat the poll's own read,
      // the answer is the same; the in-process suites pin down the wake-up itself.
      await second.server.waitForLine((line) => line.msg === "request received" && line.route === "/api/v1/documents/:documentId/changes", 5_000);
      const patchedAt = performance.now();
      const patched = await call(first.origin, "PATCH", `/documents/${id}/content`, {
        baseVersion: 1,
        checksum: checksum("a"),
        clientId: "c-ann",
        seq: 1,
        ops: [{ op: "insert", index: 1, lines: ["b"] }],
      });
      const answer = await polling;

      expect(patched).toEqual({ status: 200, body: { version: 2, opsSinceBase: [], checksum: checksum("a\nb") } });
      expect(answer).toEqual({
        status: 200,
        body: { fromVersion: 1, currentVersion: 2, ops: [{ op: "insert", index: 1, lines: ["b"] }], events: [{ version: 2, changeType: "UPDATED", clientId: "c-ann" }] },
      });
      expect(performance.now() - patchedAt).toBeLessThan(1_000);

      for (const { server } of [first, second]) server.child.kill("SIGTERM");
      const exits = await Promise.all([first, second].map(({ server }) => server.waitForExit(20_000)));
      expect(exits).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);

      for (const { server } of [first, second]) {
        const listening = server.lines.find((line) => line.msg.startsWith("listening on "));
        expect(listening?.storage).toBe(storageUrl().replace(`:${PASSWORD}@`, ":***@"));
        const everything = server.lines.map((line) => JSON.stringify(line)).join("\n") + server.rawOutput();
        expect(everything).not.toContain(PASSWORD);
      }
    },
    90_000,
  );
});
