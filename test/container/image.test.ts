import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CI_IS_SET } from "../support/ci.js";
import { REPO_ROOT, startCommand, type LogLine, type ServerProcess } from "../support/server-process.js";
import { BASE_IMAGE, PODMAN_ENV, containersUnavailable, podman, podmanSync } from "./podman.js";

// The image as an operator runs it (docs/container.md): built from the Containerfile with Podman on
// this machine, run on SQLite in its /data volume, checked for readiness and health, and stopped
// with `podman stop` (SIGTERM to PID 1) while a long poll waits: the poll gets its 204, the log says
// "closed cleanly", the container exits 0; started again, it still has the document.

/** A cold build (base present, no layer cached) took 10 min on a loaded 2-core machine; cached, under a minute. */
const BUILD_MS = 25 * 60_000;
const STEP_MS = 60_000;

const missing = containersUnavailable();
const skippedByCi = process.env.FOLIO_CONTAINER_SKIP !== undefined && process.env.FOLIO_CONTAINER_SKIP !== "";
if (missing !== undefined && (!CI_IS_SET || skippedByCi)) {
  console.warn(`test/container/image.test.ts: SKIPPED, this machine cannot build and run the container image: ${missing}`);
}

const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
const IMAGE = `localhost/folio-image-test:${suffix}`;
const CONTAINER = `folio-image-test-${suffix}`;
/** The container (and its volume) of the run under an arbitrary user id. */
const ANY_USER = `folio-image-test-uid-${suffix}`;
let bindMount: string | undefined;

const isListening = (since: number) => (line: LogLine) => line.msg.startsWith("listening on ") && Number(line.time) >= since;

describe.skipIf(missing !== undefined && (!CI_IS_SET || skippedByCi))("the container image", () => {
  let buildLog = "";
  let attached: ServerProcess | undefined;

  beforeAll(async () => {
    if (missing !== undefined) throw new Error(`${missing}; CI is set and .ci/run found nothing missing, so the container test must run`);
    const started = performance.now();
    const args = ["build", "--pull=never", "--format", "docker", "--build-arg", `NODE_IMAGE=${BASE_IMAGE}`, "-t", IMAGE, "-f", "Containerfile", "."];
    const build = await podman(args, BUILD_MS, REPO_ROOT);
    buildLog = build.stdout + build.stderr;
    if (build.code !== 0) throw new Error(`podman build exited ${build.code}:\n${buildLog.slice(-6000)}`);
    console.log(`test/container/image.test.ts: image built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, BUILD_MS + 10_000);

  afterAll(() => {
    attached?.kill();
    podmanSync(["rm", "--force", "--volumes", "--time", "0", CONTAINER]);
    podmanSync(["rm", "--force", "--volumes", "--time", "0", ANY_USER]);
    podmanSync(["volume", "rm", "--force", ANY_USER]);
    podmanSync(["rmi", "--force", IMAGE]);
    if (bindMount !== undefined) rmSync(bindMount, { recursive: true, force: true });
  }, STEP_MS);

  it("holds every runtime dependency and is a non-root image that runs node itself, with a health check and SIGTERM as its stop signal", () => {
    // npm can exit 0 with a partial node_modules ("Exit handler never called!"): every runtime dependency must be there.
    expect(buildLog).not.toContain("Exit handler never called");
    // npm ls exits 1 on any missing or invalid package of the tree.
    const installed = podmanSync(["run", "--rm", IMAGE, "npm", "ls", "--omit=dev", "--all"]);
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    // Podman's inspect gives the health check beside Config (Docker's inside it); it is kept because of --format docker.
    const [image] = JSON.parse(podmanSync(["image", "inspect", IMAGE]).stdout) as { Config: Record<string, unknown>; Healthcheck: unknown }[];
    const { User, Cmd, Entrypoint, StopSignal, Volumes, ExposedPorts, WorkingDir } = image!.Config;
    const Healthcheck = image!.Healthcheck;
    expect({ User, Cmd, Entrypoint, StopSignal, Volumes, ExposedPorts, WorkingDir, Healthcheck }).toEqual({
      User: "node",
      Cmd: ["node", "--single-threaded-gc", "dist/server.js"],
      Entrypoint: undefined,
      StopSignal: "SIGTERM",
      Volumes: { "/data": {} },
      ExposedPorts: { "8080/tcp": {} },
      WorkingDir: "/app",
      Healthcheck: { Test: ["CMD", "node", "dist/cli/health-check.js"], Interval: 10e9, Timeout: 10e9, StartPeriod: 30e9, Retries: 3 },
    });
  });

  it("serves from its /data volume, is ready and healthy, drains a waiting long poll on podman stop, and keeps the document", async () => {
    let since = Date.now();
    attached = startCommand("podman", ["run", "--name", CONTAINER, "--publish", "127.0.0.1::8080", "--env", "LOG_LEVEL=debug", IMAGE], PODMAN_ENV, REPO_ROOT);
    const listening = await attached.waitForLine(isListening(since), STEP_MS);
    expect(listening.pid).toBe(1);
    const base = `http://${podmanSync(["port", CONTAINER, "8080/tcp"]).stdout.trim()}`;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const ready = await fetch(`${base}/health/ready`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { status: "ready" } });
    const health = podmanSync(["healthcheck", "run", CONTAINER]);
    expect({ code: health.code, stdout: health.stdout.trim() }).toEqual({ code: 0, stdout: "" });
    const inside = podmanSync(["exec", CONTAINER, "node", "-e", INSIDE]);
    expect(JSON.parse(inside.stdout)).toEqual({ uid: 1000, data: ["folio.db", "folio.db-shm", "folio.db-wal", "folio.db.lock"], typescript: false, demo: false, sources: false });

    const created = await fetch(`${base}/api/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Kept", content: "in the volume\n" }) });
    expect(created.status).toBe(201);
    const { id, version } = (await created.json()) as { id: string; version: number };
    const poll = fetch(`${base}/api/v1/documents/${id}/changes?since=${version}&wait=50`).then(async (response) => ({ status: response.status, body: await response.text() }));
    await attached.waitForLine((line) => line.msg === "request received" && line.route === "/api/v1/documents/:documentId/changes", STEP_MS);
    expect(await untilWaiting(base)).toBe(true);

    const stopped = await podman(["stop", "--time", "20", CONTAINER], STEP_MS);
    expect(await poll).toEqual({ status: 204, body: "" });
    expect(stopped.code).toBe(0);
    // 0 is the server's own exit; a SIGKILL after the stop timeout would be 137, the default action of SIGTERM 143.
    expect(await attached.waitForExit(STEP_MS)).toEqual({ code: 0, signal: null });
    const shutdown = attached.lines.filter((line) => ["shutting down: finishing in-flight requests", "closed cleanly"].includes(line.msg));
    expect(shutdown.map(({ msg, signal }) => ({ msg, signal }))).toEqual([
      { msg: "shutting down: finishing in-flight requests", signal: "SIGTERM" },
      { msg: "closed cleanly", signal: undefined },
    ]);

    since = Date.now();
    attached = startCommand("podman", ["start", "--attach", CONTAINER], PODMAN_ENV, REPO_ROOT);
    await attached.waitForLine(isListening(since), STEP_MS);
    const again = `http://${podmanSync(["port", CONTAINER, "8080/tcp"]).stdout.trim()}`;
    const kept = await fetch(`${again}/api/v1/documents/${id}`);
    expect({ status: kept.status, content: ((await kept.json()) as { content: string }).content }).toEqual({ status: 200, content: "in the volume\n" });
    expect((await podman(["stop", "--time", "20", CONTAINER], STEP_MS)).code).toBe(0);
    expect(await attached.waitForExit(STEP_MS)).toEqual({ code: 0, signal: null });
  }, 6 * STEP_MS);

  it("runs under any user id with group 0 (--user 12345:0): serves, writes its files 0600, keeps them across a restart, and names a /data it cannot write", async () => {
    let since = Date.now();
    const args = ["run", "--name", ANY_USER, "--user", "12345:0", "--publish", "127.0.0.1::8080", "--volume", `${ANY_USER}:/data`, IMAGE];
    attached = startCommand("podman", args, PODMAN_ENV, REPO_ROOT);
    await attached.waitForLine(isListening(since), STEP_MS);
    const base = `http://${podmanSync(["port", ANY_USER, "8080/tcp"]).stdout.trim()}`;
    const created = await fetch(`${base}/api/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Any user", content: "kept" }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const files = ["folio.db", "folio.db-shm", "folio.db-wal", "folio.db.lock"].map((file) => [file, "600"]);
    expect(JSON.parse(podmanSync(["exec", ANY_USER, "node", "-e", MODES]).stdout)).toEqual({ uid: 12345, gid: 0, data: files });
    expect((await podman(["stop", "--time", "20", ANY_USER], STEP_MS)).code).toBe(0);
    expect(await attached.waitForExit(STEP_MS)).toEqual({ code: 0, signal: null });

    since = Date.now();
    attached = startCommand("podman", ["start", "--attach", ANY_USER], PODMAN_ENV, REPO_ROOT);
    await attached.waitForLine(isListening(since), STEP_MS);
    const again = `http://${podmanSync(["port", ANY_USER, "8080/tcp"]).stdout.trim()}`;
    const kept = await fetch(`${again}/api/v1/documents/${id}`);
    expect({ status: kept.status, content: ((await kept.json()) as { content: string }).content }).toEqual({ status: 200, content: "kept" });
    expect((await podman(["stop", "--time", "20", ANY_USER], STEP_MS)).code).toBe(0);
    expect(await attached.waitForExit(STEP_MS)).toEqual({ code: 0, signal: null });

    // A bind mount the user cannot write (root's, 0700): one line that names the path and the user, exit code 3.
    bindMount = mkdtempSync(join(tmpdir(), "folio-root-data-"));
    const refused = await podman(["run", "--rm", "--user", "12345:0", "--volume", `${bindMount}:/data`, IMAGE], STEP_MS);
    expect({ code: refused.code, line: refused.stderr.split("\n").find((line) => line.startsWith("storage unusable:")) }).toEqual({
      code: 3,
      line: "storage unusable: cannot create files in the directory /data as user 12345 (group 0): EACCES; give that user (or its group, with write permission) the directory, or point service.storage.url elsewhere",
    });
  }, 6 * STEP_MS);
});

/** Run inside the container: who the service runs as, and the modes of what it wrote to /data. */
const MODES = `
const fs = require("node:fs");
console.log(JSON.stringify({
  uid: process.getuid(),
  gid: process.getgid(),
  data: fs.readdirSync("/data").sort().map((file) => [file, (fs.statSync("/data/" + file).mode & 0o777).toString(8)]),
}));`;

/** Run inside the container: who the service runs as, what it wrote to /data, and what the image leaves out. */
const INSIDE = `
const fs = require("node:fs");
const has = (name) => { try { require.resolve(name, { paths: ["/app"] }); return true; } catch { return false; } };
console.log(JSON.stringify({
  uid: process.getuid(),
  data: fs.readdirSync("/data").sort(),
  typescript: has("typescript"),
  demo: fs.existsSync("/app/dist/demo"),
  sources: fs.existsSync("/app/src"),
}));`;

/** Whether the service counts one waiting feed request (its metric), asked at most 100 times: the SIGTERM must find the poll waiting. */
async function untilWaiting(base: string): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    if (/^folio_feed_waiters 1$/m.test(metrics)) return true;
  }
  return false;
}
