import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";
import { documentBodyBytes } from "../../src/http/json-bodies.js";
import { sweepRequests, type Targets } from "../support/hostile-requests.js";
import { checksum, createDocument, UNKNOWN_ID } from "../support/http-expect.js";
import { sendRaw, type RawRequest, type RawResponse } from "../support/raw-http.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";

// Prism's validating proxy (@stoplight/prism-cli, a dev dependency) between requests and the app:
// it checks each answer against the served OpenAPI document and names every mismatch in an
// `sl-violations` header. The traffic is the hostile-input suite's systematic sweep (every
// endpoint, odd ids, out-of-range numbers and odd query values) and an editing session with every
// kind of answer (201, 200, 204, both 409s, 401, 404, 413, 422). No answer may break the document;
// the requests' own violations are the sweep's point and are not counted.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PRISM = join(ROOT, "node_modules/@stoplight/prism-cli/dist/index.js");
const TIMEOUT_MS = 10_000;

let t: TestApp;
let fake: FakeTaiga;
let prism: ChildProcess | undefined;
let prismPort: number;
let dir: string;
let prismLog = "";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  fake = await FakeTaiga.start();
  const hash = bcrypt.hashSync("the right one", 4);
  t = await buildTestApp({
    config: (config) => {
      config.masterPassword.hash = hash;
      config.tracker.apiUrl = fake.apiUrl;
      config.documents.maxContentBytes = 16_384;
    },
  });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const appPort = (t.app.server.address() as AddressInfo).port;
  dir = mkdtempSync(join(tmpdir(), "folio-prism-"));
  const document = join(dir, "openapi.json");
  writeFileSync(document, (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).body);
  prismPort = await freePort();
  prism = spawn(process.execPath, [PRISM, "proxy", document, `http://127.0.0.1:${appPort}`, "--host", "127.0.0.1", "--port", String(prismPort)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
  });
  const listening = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      prismLog += chunk.toString("utf8");
      if (prismLog.includes("Prism is listening")) resolve();
    };
    prism?.stdout?.on("data", onData);
    prism?.stderr?.on("data", onData);
    prism?.once("exit", (code) => reject(new Error(`prism exited ${code}: ${prismLog.slice(-2000)}`)));
  });
  await Promise.race([listening, new Promise((_, reject) => setTimeout(() => reject(new Error(`prism did not start: ${prismLog.slice(-2000)}`)), 60_000))]);
}, 90_000);

afterAll(async () => {
  prism?.kill("SIGKILL");
  await t?.close();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The violations Prism found in an answer (its request's own are the sweep's point, not counted). */
function answerViolations(response: RawResponse): string[] {
  const header = response.headers["sl-violations"];
  if (header === undefined) return [];
  const violations = JSON.parse(header) as { location: string[]; message: string }[];
  return violations.filter((violation) => violation.location[0] === "response").map((violation) => `${violation.location.join(".")}: ${violation.message}`);
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const JSON_HEADER: [string, string] = ["Content-Type", "application/json"];

describe("Prism's validating proxy in front of the app", () => {
  it("finds no answer that breaks the OpenAPI document, over the hostile sweep and an editing session", async () => {
    const victim = await createDocument(t.app, { title: "Victim", content: "v" });
    const bystander = await createDocument(t.app, { title: "Bystander", content: "alpha\nbeta" });
    const targets: Targets = { victim: victim.id, bystanders: [bystander.id], unknown: UNKNOWN_ID, maxBodyBytes: documentBodyBytes({ maxContentBytes: 16_384 }) };
    const { id } = await createDocument(t.app, { title: "Session", content: "a\nb" });
    const url = `/api/v1/documents/${id}`;
    const patch = (seq: number, ops: unknown[], baseVersion = 1, base = "a\nb") => ({ baseVersion, checksum: checksum(base), clientId: "p", seq, ops });
    const session: RawRequest[] = [
      { method: "POST", target: "/api/v1/documents", headers: [JSON_HEADER], body: json({ title: "New", content: "x" }) },
      { method: "GET", target: url, headers: [] },
      { method: "PATCH", target: `${url}/content`, headers: [JSON_HEADER], body: json(patch(1, [{ op: "replace", index: 1, count: 1, lines: ["B"] }])) },
      { method: "PATCH", target: `${url}/content`, headers: [JSON_HEADER], body: json({ ...patch(2, [{ op: "replace", index: 1, count: 1, lines: ["C"] }]), clientId: "q" }) },
      { method: "PATCH", target: `${url}/content`, headers: [JSON_HEADER], body: json(patch(1, [{ op: "delete", index: 0, count: 1 }])) },
      { method: "PATCH", target: `${url}/content`, headers: [JSON_HEADER], body: json({ ...patch(3, [{ op: "insert", index: 0, lines: ["z"] }]), checksum: checksum("wrong") }) },
      { method: "GET", target: `${url}/changes?since=1&wait=0`, headers: [] },
      { method: "GET", target: `${url}/changes?since=0&wait=0`, headers: [] },
      { method: "GET", target: `${url}/changes?since=2&wait=0`, headers: [] },
      { method: "GET", target: `${url}/history`, headers: [] },
      { method: "PATCH", target: `${url}/title`, headers: [JSON_HEADER], body: json({ title: "Renamed", expectedVersion: 1 }) },
      { method: "PUT", target: url, headers: [JSON_HEADER], body: json({ title: "Big", content: "x".repeat(20_000) }) },
      { method: "GET", target: "/api/v1/documents", headers: [["Authorization", `Basic ${Buffer.from("admin:wrong").toString("base64")}`]] },
      { method: "GET", target: "/api/v1/documents", headers: [["Authorization", `Basic ${Buffer.from("admin:the right one").toString("base64")}`]] },
      { method: "POST", target: `${url}/read-link`, headers: [] },
      { method: "DELETE", target: url, headers: [] },
      { method: "POST", target: `${url}/restore`, headers: [] },
      { method: "GET", target: "/api/v1/info", headers: [] },
      { method: "POST", target: "/api/v1/tracker/auth", headers: [JSON_HEADER], body: json({ username: "alice", password: "alice-demo" }) },
    ];
    // Prism 5 itself exits on a path whose percent-encoding does not decode (a URIError of its own):
    // those few stay with the hostile-input suite, which holds every answer to the document too.
    const decodable = (request: RawRequest) => {
      try {
        decodeURIComponent(request.target);
        return true;
      } catch {
        return false;
      }
    };
    const requests = [...session, ...sweepRequests(targets).map(({ request }) => request)].filter(decodable);
    const found: string[] = [];
    const statuses = new Map<number, number>();
    const unanswered: string[] = [];
    // The app waits on the test's clock: a feed request that Prism passes on with a query it read
    // its own way (`since=1%20` as 1, the default wait) ends with its wait as the clock moves on.
    const clockRuns = setInterval(() => t.clock.advance(60_000), 500);
    onTestFinished(() => clearInterval(clockRuns));
    for (const request of requests) {
      const response = await sendRaw(prismPort, request, TIMEOUT_MS).catch((error: unknown) => {
        unanswered.push(`${request.method} ${request.target.slice(0, 100)}: ${String(error)}`);
        return undefined;
      });
      if (response === undefined) continue;
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      for (const violation of answerViolations(response)) found.push(`${request.method} ${request.target.slice(0, 100)} → ${response.status}: ${violation}`);
    }
    expect(found.slice(0, 20), `${found.length} mismatches in ${requests.length} answers`).toEqual([]);
    expect(unanswered).toEqual([]);
    // Every kind of answer went through the proxy, not only refusals of Prism's own.
    expect([200, 201, 204, 400, 401, 404, 409, 413, 422].filter((status) => !statuses.has(status))).toEqual([]);
    expect(requests.length).toBeGreaterThan(400);
  }, 240_000);
});
