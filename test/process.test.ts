import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest, Agent, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/storage/sqlite/sqlite-store.js";
import { UUID } from "./support/http-expect.js";
import { startProcess, type LogLine, type ServerProcess } from "./support/server-process.js";

const STARTUP_MS = 20_000;
const SHUTDOWN_MS = 20_000;

let dir: string;
let server: ServerProcess | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "folio-process-"));
});

afterEach(() => {
  server?.kill();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the real server on a free loopback port with a SQLite file in the temp dir; resolves with its address. */
async function startServer(): Promise<{ server: ServerProcess; address: URL }> {
  server = startProcess(
    "src/server.ts",
    { SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: `sqlite:${join(dir, "service.db")}`, LOG_LEVEL: "debug" },
    dir,
  );
  const listening = await server.waitForLine((line) => line.msg.startsWith("listening on "), STARTUP_MS);
  const address = new URL(String(listening.address));
  expect(address.hostname).toBe("127.0.0.1");
  return { server, address };
}

const isMessage = (text: string) => (line: LogLine) => line.msg === text;

describe("the server process", () => {
  it("starts on a free port with one line that says where, answers /api/v1/info over loopback and closes cleanly on SIGTERM", async () => {
    const { server, address } = await startServer();
    // Fastify's own "Server listening at" line is left out.
    expect(server.lines.filter((line) => /listening/i.test(line.msg)).map((line) => line.msg)).toEqual([`listening on ${address.origin}`]);

    const response = await fetch(new URL("/api/v1/info", address));
    expect({ status: response.status, type: response.headers.get("content-type"), body: await response.json() }).toEqual({
      status: 200,
      type: "application/json; charset=utf-8",
      body: { name: "folio", version: "0.1.0", tracker: false },
    });

    server.child.kill("SIGTERM");

    expect(await server.waitForExit(SHUTDOWN_MS)).toEqual({ code: 0, signal: null });
    expect(server.lines.map((line) => line.msg)).toContain("closed cleanly");
  });

  it("listens with a queue of 4,096 connections, or the kernel's cap when that is lower", async () => {
    const { address } = await startServer();

    // ss shows a listening socket's backlog in its Send-Q column.
    const listening = execFileSync("ss", ["-Hltn", `sport = :${address.port}`], { encoding: "utf8" }).trim().split(/\s+/);
    const cap = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));
    expect(listening.slice(0, 4)).toEqual(["LISTEN", "0", String(Math.min(4096, cap)), `127.0.0.1:${address.port}`]);
  });

  it("answers a request that is in flight when SIGTERM arrives, then exits 0 with the write on disk", async () => {
    const { server, address } = await startServer();
    const body = JSON.stringify({ title: "Last words", content: "written during shutdown\n".repeat(200) });
    const half = Math.floor(body.length / 2);
    const agent = new Agent({ keepAlive: true });

    // Send the headers and half the body; the server logs the request (at debug) as soon as it has the headers.
    const request = httpRequest({
      host: address.hostname,
      port: address.port,
      method: "POST",
      path: "/api/v1/documents",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    const answered = new Promise<{ response: IncomingMessage; text: string }>((resolve, reject) => {
      request.once("error", reject);
      request.once("response", (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        response.once("end", () => resolve({ response, text }));
        response.once("error", reject);
      });
    });
    request.write(body.slice(0, half));
    await server.waitForLine((line) => line.msg === "request received" && line.method === "POST", STARTUP_MS);

    server.child.kill("SIGTERM");
    await server.waitForLine(isMessage("shutting down: finishing in-flight requests"), SHUTDOWN_MS);
    request.end(body.slice(half));

    const { response, text } = await answered;
    agent.destroy();
    expect(response.statusCode).toBe(201);
    const document = JSON.parse(text) as { id: string; title: string; content: string; version: number };
    expect(document.id).toMatch(UUID);
    expect({ title: document.title, content: document.content, version: document.version }).toEqual({
      title: "Last words",
      content: "written during shutdown\n".repeat(200),
      version: 1,
    });

    expect(await server.waitForExit(SHUTDOWN_MS)).toEqual({ code: 0, signal: null });
    expect(server.lines.map((line) => line.msg)).toContain("closed cleanly");

    const store = SqliteStore.open(join(dir, "service.db"));
    try {
      expect((await store.reads(document.id).document())?.version).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("closes an idle keep-alive connection on SIGTERM instead of waiting for the client", async () => {
    const { server, address } = await startServer();
    const agent = new Agent({ keepAlive: true });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      httpRequest({ host: address.hostname, port: address.port, path: "/api/v1/info", agent }, (response) => {
        response.resume();
        response.once("end", () => resolve(response.statusCode));
      })
        .once("error", reject)
        .end();
    });
    expect(status).toBe(200);

    server.child.kill("SIGTERM");

    expect(await server.waitForExit(SHUTDOWN_MS)).toEqual({ code: 0, signal: null });
    agent.destroy();
  });
});

describe("npm run hash-password", () => {
  it("prints a bcrypt hash of the password read from standard input", async () => {
    const child = startProcess("src/cli/hash-password.ts", {}, dir);
    server = child;
    child.child.stdin.end("s3cret pässword\n");

    expect(await child.waitForExit(SHUTDOWN_MS)).toEqual({ code: 0, signal: null });
    const printed = child.rawOutput().trim();
    expect(printed).toMatch(/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/);
    expect(await bcrypt.compare("s3cret pässword", printed)).toBe(true);
    expect(await bcrypt.compare("s3cret pässword\n", printed)).toBe(false);
  });

  it("refuses an empty password with exit code 2", async () => {
    const child = startProcess("src/cli/hash-password.ts", {}, dir);
    server = child;
    child.child.stdin.end("\n");

    expect(await child.waitForExit(SHUTDOWN_MS)).toEqual({ code: 2, signal: null });
    expect(child.rawOutput()).toBe("no password given on standard input\n");
  });
});
