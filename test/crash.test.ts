import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, fetch } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checksum } from "./support/http-expect.js";
import { startProcess, type ServerProcess } from "./support/server-process.js";
import { TEST_STORE_KIND } from "./support/test-app.js";

// kill -9 of the service during a burst of concurrent content patches, on the store of the vitest
// project (a SQLite file, or a PostgreSQL schema). After a restart every acknowledged patch is in
// the text exactly once, and repeating it (same clientId and seq) returns the stored answer.

const CLIENTS = 8;
/** Acknowledged patches after which the service is killed, while the clients keep sending. */
const KILL_AFTER_ACKS = 40;
/** Each client's limit, so the burst is bounded even if the kill came late. */
const MAX_PATCHES_PER_CLIENT = 100;
const TIMEOUT_MS = 20_000;
const BASE_TEXT = "base";

let dir: string;
let schema: string | undefined;
let server: ServerProcess | undefined;
let agent: Agent;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "folio-crash-"));
  agent = new Agent({ connections: CLIENTS * 2 });
});

afterEach(async () => {
  server?.kill();
  server = undefined;
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
  if (schema !== undefined) {
    const { dropSchema } = await import("./support/postgres.js");
    await dropSchema(schema);
    schema = undefined;
  }
});

async function storageUrl(): Promise<string> {
  if (TEST_STORE_KIND === "sqlite") return `sqlite:${join(dir, "service.db")}`;
  // Imported only on PostgreSQL: the support probes the server when it loads.
  const { POSTGRES_TEST_URL, uniqueSchemaName } = await import("./support/postgres.js");
  schema = uniqueSchemaName();
  return `${POSTGRES_TEST_URL}?schema=${schema}`;
}

async function start(url: string): Promise<string> {
  server = startProcess("src/server.ts", { SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: url, LOG_LEVEL: "info" }, dir);
  const listening = await server.waitForLine((line) => line.msg.startsWith("listening on "), TIMEOUT_MS);
  return String(listening.address);
}

async function call(origin: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${origin}${path}`, {
    method,
    dispatcher: agent,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

/** Client `client`'s patch number `seq`: a line of its own inserted at the top, against version 1 (the service rebases it). */
function patch(client: number, seq: number) {
  return { baseVersion: 1, checksum: checksum(BASE_TEXT), clientId: `client-${client}`, seq, ops: [{ op: "insert", index: 0, lines: [`c${client}-s${seq}`] }] };
}

describe(`kill -9 during a burst of concurrent patches (${TEST_STORE_KIND})`, () => {
  it("keeps every acknowledged patch exactly once, and a repeated one returns the stored answer", async () => {
    const url = await storageUrl();
    let origin = await start(url);
    const created = await call(origin, "POST", "/api/v1/documents", { title: "Crash", content: BASE_TEXT });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const contentPath = `/api/v1/documents/${id}/content`;

    const acknowledged = new Map<string, { client: number; seq: number; answer: unknown }>();
    const unanswered: { client: number; seq: number }[] = [];
    let killed = false;
    const killer = server;
    const runClient = async (client: number) => {
      for (let seq = 1; seq <= MAX_PATCHES_PER_CLIENT; seq++) {
        let answer: { status: number; body: unknown };
        try {
          answer = await call(origin, "PATCH", contentPath, patch(client, seq));
        } catch {
          // The connection died with the service: this patch may or may not be committed.
          unanswered.push({ client, seq });
          return;
        }
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        acknowledged.set(`c${client}-s${seq}`, { client, seq, answer: answer.body });
        if (!killed && acknowledged.size >= KILL_AFTER_ACKS) {
          killed = true;
          killer?.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, client) => runClient(client)));
    expect(killed).toBe(true);
    expect(await killer?.waitForExit(TIMEOUT_MS)).toEqual({ code: null, signal: "SIGKILL" });
    // The kill came during the burst: some clients were still waiting for an answer.
    expect(unanswered.length).toBeGreaterThan(0);

    origin = await start(url);
    const counts = async () => {
      const read = await call(origin, "GET", `/api/v1/documents/${id}`);
      expect(read.status).toBe(200);
      const counted = new Map<string, number>();
      for (const line of (read.body as { content: string }).content.split("\n")) counted.set(line, (counted.get(line) ?? 0) + 1);
      return counted;
    };
    const before = await counts();
    for (const line of acknowledged.keys()) expect(before.get(line), line).toBe(1);
    for (const [line, count] of before) expect(count, line).toBe(1);

    for (const { client, seq, answer } of acknowledged.values()) {
      expect(await call(origin, "PATCH", contentPath, patch(client, seq))).toEqual({ status: 200, body: answer });
    }
    // A patch whose answer was lost is safe to send again: it lands once, whether or not it had been committed.
    for (const { client, seq } of unanswered) expect((await call(origin, "PATCH", contentPath, patch(client, seq))).status).toBe(200);
    const after = await counts();
    for (const { client, seq } of unanswered) expect(after.get(`c${client}-s${seq}`)).toBe(1);
    for (const [line, count] of after) expect(count, line).toBe(1);
    expect(after.size).toBe(before.size + unanswered.filter(({ client, seq }) => !before.has(`c${client}-s${seq}`)).length);

    server?.child.kill("SIGTERM");
    expect(await server?.waitForExit(TIMEOUT_MS)).toEqual({ code: 0, signal: null });
  });
});
