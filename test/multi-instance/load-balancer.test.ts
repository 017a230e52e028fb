import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyOps } from "../../src/core/apply-ops.js";
import type { LineOperation } from "../../src/core/line-operation.js";
import { joinLines, splitLines } from "../../src/core/lines.js";
import { validateOps } from "../../src/core/validate-ops.js";
import { checksum } from "../support/http-expect.js";
import { prng } from "../support/prng.js";
import { CI_IS_SET, POSTGRES_TEST_URL, dropSchema, uniqueSchemaName } from "../support/postgres.js";
import { startProcess, type LogLine, type ServerProcess } from "../support/server-process.js";
import { NGINX_CONF, freePort, nginxMissing, renderNginxConfig, startNginx, type Nginx } from "./nginx.js";

// Two instances on PostgreSQL behind nginx running deploy/nginx.conf. Editors patch and long-poll
// only through nginx, which sends the document's requests to one instance, its home; the home is
// killed with SIGKILL mid-run (the other takes the document over) and started again. In the end
// every acknowledged patch is in the text exactly once, every editor holds the service's text, and
// no instance answered 5xx (nginx's own 502 for a PATCH an instance died on is resent, same seq).

const STARTUP_MS = 20_000;
const EDITORS = 4;
/** Patches per editor at least, and at most (the run goes on until the restarted instance served some). */
const MIN_PATCHES = 20;
const MAX_PATCHES = 400;
const RUN_MS = 18_000;
/** A loaded machine starts the home again slowly, and nginx waits out its fail_timeout before sending it requests: the run goes on until the restarted home served some, up to this. */
const MAX_RUN_MS = 45_000;
const KILL_AFTER_ACKS = 25;
const RESTART_AFTER_ACKS = 40;
const SEED = Number(process.env.FOLIO_SEED ?? Date.now() % 2 ** 31);

interface Reply {
  status: number;
  /** The answer came from an instance (JSON or an empty 204), not from nginx's own error page. */
  fromInstance: boolean;
  body: unknown;
  headers: Headers;
}

let dir: string | undefined;
let schema: string | undefined;
const processes: ServerProcess[] = [];
let nginx: Nginx | undefined;

afterEach(async () => {
  await nginx?.stop();
  nginx = undefined;
  for (const server of processes.splice(0)) server.kill();
  if (schema) await dropSchema(schema);
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = schema = undefined;
});

const missing = nginxMissing();
if (missing && !CI_IS_SET) console.warn(`${missing}: skipping the load-balancer test. Install nginx, or set CI to make this a failure.`);

describe("behind nginx with deploy/nginx.conf", () => {
  it.skipIf(missing !== undefined && !CI_IS_SET)("keeps every acknowledged patch once and every editor in step while an instance is killed and restarted", async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the load-balancer test must run`);
    const failureNote = `seed ${SEED} (replay with FOLIO_SEED=${SEED})`;
    dir = mkdtempSync(join(tmpdir(), "folio-lb-"));
    schema = uniqueSchemaName();
    const [portA, portB, listenPort] = [await freePort(), await freePort(), await freePort()];
    const storage = new URL(POSTGRES_TEST_URL);
    storage.searchParams.set("schema", schema);
    const instanceEnv = (port: number) => ({
      SERVER_HOST: "127.0.0.1",
      SERVER_PORT: String(port),
      SERVICE_STORAGE_URL: storage.toString(),
      SERVER_TRUST_PROXY: "127.0.0.1",
      LOG_LEVEL: "info",
      // Every editor of the test is one client address (127.0.0.1): the per-address limits would
      // count them as one person, and they are not what this test is about.
      SERVICE_RATE_LIMIT_WRITES_PER_SECOND: "0",
      SERVICE_RATE_LIMIT_READS_PER_SECOND: "0",
      SERVICE_RATE_LIMIT_WAITS_PER_ADDRESS: "0",
    });
    const start = async (port: number): Promise<ServerProcess> => {
      const server = startProcess("src/server.ts", instanceEnv(port), dir!);
      processes.push(server);
      await server.waitForLine((line) => line.msg.startsWith("listening on "), STARTUP_MS);
      return server;
    };
    // A first, alone, so that the schema is migrated once before B starts.
    const a = await start(portA);
    const b = await start(portB);
    nginx = startNginx(dir, renderNginxConfig(readFileSync(NGINX_CONF, "utf8"), { dir, listenPort, upstreamPorts: [portA, portB] }));
    const origin = `http://127.0.0.1:${listenPort}`;

    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply | undefined> => {
      try {
        const response = await fetch(`${origin}${path}`, {
          method,
          headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(15_000),
        });
        const type = response.headers.get("content-type") ?? "";
        const text = await response.text();
        const json = type.includes("json");
        return { status: response.status, fromInstance: json || (response.status === 204 && text === ""), body: json ? (JSON.parse(text) as unknown) : text, headers: response.headers };
      } catch {
        return undefined; // a connection error; the caller resends
      }
    };
    const instanceErrors: string[] = [];
    const note = (reply: Reply | undefined, what: string) => {
      if (reply && reply.status >= 500 && reply.fromInstance) instanceErrors.push(`${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
    };

    // nginx is up when it answers the readiness probe (bounded: 200 tries, 25 ms apart).
    for (let attempt = 0; attempt < 200; attempt++) {
      if ((await call("GET", "/health/ready"))?.status === 200) break;
      if (attempt === 199) throw new Error(`nginx did not come up: ${nginx.errors()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    // X-Request-Id and X-Forwarded-For pass through to the instance and its log.
    const traced = await call("GET", "/api/v1/info", undefined, { "x-request-id": "lb-trace-1", "x-forwarded-for": "198.51.100.7" });
    expect({ status: traced?.status, id: traced?.headers.get("x-request-id") }).toEqual({ status: 200, id: "lb-trace-1" });
    const madeUp = await call("GET", "/api/v1/info");
    expect(madeUp?.headers.get("x-request-id")).toMatch(/^[0-9a-f]{32}$/);
    const isTraced = (line: LogLine) => line.reqId === "lb-trace-1";
    const tracedLine = await Promise.any([a.waitForLine(isTraced, 5_000), b.waitForLine(isTraced, 5_000)]);
    expect({ route: tracedLine.route, remoteAddress: tracedLine.remoteAddress }).toEqual({ route: "/api/v1/info", remoteAddress: "198.51.100.7" });

    const created = await call("POST", "/api/v1/documents", { title: "Shared", content: "start" });
    expect(created?.status).toBe(201);
    const id = (created!.body as { id: string }).id;
    const documentPath = `/api/v1/documents/${id}`;
    // nginx routes a document's requests to one instance (deploy/nginx.conf hashes its id): two traced
    // reads find that instance, its home, the one killed below while the document is being edited.
    const servedBy = async (reqId: string): Promise<"A" | "B"> => {
      expect((await call("GET", documentPath, undefined, { "x-request-id": reqId }))?.status).toBe(200);
      const traced = (line: LogLine) => line.reqId === reqId && line.msg === "request";
      return Promise.any([a.waitForLine(traced, 5_000).then(() => "A" as const), b.waitForLine(traced, 5_000).then(() => "B" as const)]);
    };
    const homeName = await servedBy("lb-home-1");
    expect(await servedBy("lb-home-2")).toBe(homeName);
    const homePort = homeName === "A" ? portA : portB;
    let home = homeName === "A" ? a : b;

    const began = performance.now();
    const acknowledged: string[] = [];
    let resent = 0;
    let conflicts = 0;
    let restarted: ServerProcess | undefined;
    const servedAfterRestart = () => (restarted ? restarted.lines.filter((line) => line.msg === "request").length : 0);
    const running = () => {
      const elapsed = performance.now() - began;
      return elapsed < RUN_MS || (elapsed < MAX_RUN_MS && servedAfterRestart() < 20);
    };

    // The document's home: killed after KILL_AFTER_ACKS acknowledgements, started again after RESTART_AFTER_ACKS.
    let killed = false;
    const timeline: string[] = [`the document's home is ${homeName}`];
    const chaos = async () => {
      while (!killed && running()) {
        if (acknowledged.length >= KILL_AFTER_ACKS) {
          home.child.kill("SIGKILL");
          await home.waitForExit(5_000);
          killed = true;
          timeline.push(`killed ${homeName} at ${Math.round(performance.now() - began)} ms`);
        } else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      while (!restarted && running()) {
        if (acknowledged.length >= RESTART_AFTER_ACKS) {
          home = await start(homePort);
          restarted = home;
          timeline.push(`${homeName} listening again at ${Math.round(performance.now() - began)} ms`);
        } else await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };

    const editor = async (index: number) => {
      const next = prng(SEED + index);
      for (let seq = 1; seq <= MAX_PATCHES && running() && (seq <= MIN_PATCHES || servedAfterRestart() < 20); seq++) {
        let head: Reply | undefined;
        for (let attempt = 0; attempt < 20 && head?.status !== 200; attempt++) {
          head = await call("GET", documentPath);
          note(head, "GET document");
        }
        if (head?.status !== 200) throw new Error(`editor ${index} could not read the document`);
        const { version, content } = head.body as { version: number; content: string };
        const lines = splitLines(content);
        const line = `e${index}-${seq}`;
        const patch = {
          baseVersion: version,
          checksum: checksum(content),
          clientId: `editor-${index}`,
          seq,
          ops: [{ op: "insert", index: Math.floor(next() * (lines.length + 1)), lines: [line] }],
        };
        for (let attempt = 0; attempt < 20; attempt++) {
          const answer = await call("PATCH", `${documentPath}/content`, patch);
          note(answer, "PATCH content");
          if (answer?.status === 200) {
            acknowledged.push(line);
            break;
          }
          if (answer?.status === 409) {
            conflicts++;
            break;
          }
          if (answer !== undefined && answer.fromInstance) throw new Error(`PATCH answered ${answer.status}: ${JSON.stringify(answer.body)}`);
          resent++; // nginx's 502 or a broken connection: the same clientId and seq again
        }
      }
    };

    // Each editor also follows the feed and keeps its own copy of the text from it.
    let finalVersion = Number.POSITIVE_INFINITY;
    const follower = async () => {
      let since = 1;
      let lines = ["start"];
      for (let poll = 0; poll < 10_000 && since < finalVersion; poll++) {
        if (performance.now() - began > MAX_RUN_MS + 10_000) throw new Error(`a follower is stuck at version ${since}`);
        const answer = await call("GET", `${documentPath}/changes?since=${since}&wait=2`);
        note(answer, "GET changes");
        if (answer?.status !== 200) continue;
        const view = answer.body as { currentVersion: number; ops?: LineOperation[]; content?: string };
        if (view.content !== undefined) lines = splitLines(view.content);
        else {
          const ops = validateOps(view.ops ?? []);
          if (!ops.ok) throw new Error(`the feed sent invalid ops: ${ops.message}`);
          const applied = applyOps(lines, ops.ops);
          if (!applied.ok) throw new Error(`the feed's ops do not fit the follower's text: ${applied.message}`);
          lines = applied.lines;
        }
        since = view.currentVersion;
      }
      return { since, text: joinLines(lines) };
    };

    // Failures are kept as values until the end, so that none is left unhandled meanwhile.
    const followers = Array.from({ length: EDITORS }, () => follower().catch((error: unknown) => ({ error: String(error) })));
    await Promise.all([chaos(), ...Array.from({ length: EDITORS }, (_, index) => editor(index))]);
    timeline.push(`editors done at ${Math.round(performance.now() - began)} ms; ${homeName} served ${servedAfterRestart()} since its restart`);
    const final = await call("GET", documentPath);
    expect(final?.status).toBe(200);
    const { version, content } = final!.body as { version: number; content: string };
    finalVersion = version;
    const copies = await Promise.all(followers);

    const context = { seed: failureNote, timeline, acknowledged: acknowledged.length, resent, conflicts, killed, restarted: restarted !== undefined };
    expect({ ...context, instanceErrors }).toEqual({ ...context, instanceErrors: [] });
    expect(killed && restarted !== undefined).toBe(true);
    // Every acknowledged line once, and nothing else but the first line.
    expect(splitLines(content).sort()).toEqual(["start", ...acknowledged].sort());
    expect(copies).toEqual(Array.from({ length: EDITORS }, () => ({ since: version, text: content })));
    // No instance logged a 5xx answer, before the kill, after it, or after the restart.
    const serverErrors = (lines: LogLine[]) => lines.filter((line) => line.msg === "request" && Number(line.status) >= 500);
    expect([...serverErrors(a.lines), ...serverErrors(b.lines), ...serverErrors(restarted?.lines ?? [])]).toEqual([]);
    // The restarted instance took part again.
    expect({ timeline, served: servedAfterRestart() > 0 }).toEqual({ timeline, served: true });
    // nginx's access log names routes, never the document's id (its edit link).
    const log = nginx.accessLog();
    expect(log.includes(id)).toBe(false);
    expect(log).toContain('"PATCH /api/v1/documents/{id}/content" 200');
    expect(log).toContain('"GET /api/v1/documents/{id}/changes" ');
  }, MAX_RUN_MS + 30_000);
});
