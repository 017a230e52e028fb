import { spawnSync } from "node:child_process";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, ensureBuilt, startCommand, type ServerProcess, processesPerTest } from "./support/server-process.js";

// `npm start` as an operator and a supervisor use it: the build happened at install (`prepare`),
// the start only starts, SIGTERM to the npm process reaches the server, and several instances can
// start at once from one checkout. These tests run the real npm on the built dist/.

const TIMEOUT_MS = 20_000;

const work = processesPerTest("folio-start-", { emptyConfigFile: true });

beforeAll(() => {
  ensureBuilt();
}, 130_000);

/**
 * `npm <args>` in `cwd` with only the given environment (a service.yaml of the checkout does not leak
 * in), leading its own process group, so that the clean-up after a failed test ends the server too
 * (SIGKILL to npm alone would leave it running).
 */
function npm(args: string[], env: Record<string, string>, cwd = REPO_ROOT): ServerProcess {
  const started = startCommand("npm", args, { HOME: work.dir, SERVICE_CONFIG_FILE: join(work.dir, "empty.yaml"), ...env }, cwd, { ownGroup: true });
  work.track(started);
  return started;
}

function npmStart(name: string): ServerProcess {
  return npm(["start"], { SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: `sqlite:${join(work.dir, `${name}.db`)}` });
}

const isListening = (line: { msg: string }) => line.msg.startsWith("listening on ");

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm start", () => {
  it("starts the built server without building, and SIGTERM to the npm process stops the server gracefully", async () => {
    const started = npmStart("one");
    const listening = await started.waitForLine(isListening, TIMEOUT_MS);
    const serverPid = Number(listening.pid);
    expect(serverPid).not.toBe(started.child.pid);
    // The collector works on the event loop's thread (docs/choices.md, "The service").
    expect(readFileSync(`/proc/${serverPid}/cmdline`, "utf8").split("\0")).toContain("--single-threaded-gc");
    const info = await fetch(new URL("/api/v1/info", String(listening.address)));
    expect(info.status).toBe(200);
    // Built at install: /info reports when.
    expect(Date.parse(((await info.json()) as { builtAt: string }).builtAt)).not.toBeNaN();

    started.child.kill("SIGTERM");

    expect(await started.waitForExit(TIMEOUT_MS)).toEqual({ code: 0, signal: null });
    expect(started.lines.map((line) => line.msg)).toEqual(expect.arrayContaining(["shutting down: finishing in-flight requests", "closed cleanly"]));
    expect(isAlive(serverPid)).toBe(false);
    // Silent npm (.npmrc): no banner, no other output.
    expect(started.rawOutput()).toBe("");
  });

  it("brings up four instances started at the same moment from one checkout", async () => {
    const instances = ["a", "b", "c", "d"].map(npmStart);
    const addresses = await Promise.all(instances.map((started) => started.waitForLine(isListening, TIMEOUT_MS)));
    const answers = await Promise.all(addresses.map(async (line) => (await fetch(new URL("/api/v1/info", String(line.address)))).status));
    expect(answers).toEqual([200, 200, 200, 200]);

    instances.forEach((started) => started.child.kill("SIGTERM"));
    for (const started of instances) expect(await started.waitForExit(TIMEOUT_MS)).toEqual({ code: 0, signal: null });
  });

  it("says in one line what to run when there is no build", async () => {
    const bare = join(work.dir, "checkout");
    for (const entry of ["package.json", ".npmrc", "scripts"]) cpSync(join(REPO_ROOT, entry), join(bare, entry), { recursive: true });

    const started = npm(["start"], {}, bare);

    expect(await started.waitForExit(TIMEOUT_MS)).toEqual({ code: 1, signal: null });
    expect(started.rawOutput()).toBe("dist/server.js is missing: run `npm run build` (or `npm ci`, which builds) first\n");
  });
});

describe("npm run hash-password", () => {
  it("prints only the hash, so $(npm run hash-password) captures exactly it", async () => {
    const result = spawnSync("npm", ["run", "hash-password"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: work.dir },
      input: "s3cret\n",
      encoding: "utf8",
      timeout: TIMEOUT_MS,
    });

    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" });
    expect(result.stdout).toMatch(/^\$2b\$12\$[./A-Za-z0-9]{53}\n$/);
    expect(await bcrypt.compare("s3cret", result.stdout.trim())).toBe(true);
  });
});
