import { execFileSync, spawn, type ChildProcessByStdio } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PROJECT, SAMPLE_DOCUMENT, seedDemoWorld } from "../src/demo/demo-world.js";
import { FakeTaiga } from "../src/demo/fake-taiga.js";
import { REPO_ROOT } from "./support/server-process.js";
import { buildTestApp, type TestApp } from "./support/test-app.js";

// `npm run demo-tracker` as a newcomer runs it: the built script through the real npm, on a free
// port; it must say how to point the service at it, answer a login of a printed account, and stop
// on a signal. The seeded world is checked through the service's own tracker proxy.

const TIMEOUT_MS = 20_000;

type Child = ChildProcessByStdio<null, Readable, Readable>;
const started: Child[] = [];
let testApp: TestApp | undefined;
let fake: FakeTaiga | undefined;

beforeAll(() => {
  // `npm ci` builds dist/ (prepare); build here only when this checkout has no build of the script.
  if (!existsSync(join(REPO_ROOT, "dist/demo/demo-tracker.js"))) execFileSync("npm", ["run", "build"], { cwd: REPO_ROOT, stdio: "ignore", timeout: 120_000 });
}, 130_000);

afterEach(async () => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await testApp?.close();
  await fake?.close();
  testApp = fake = undefined;
});

/** Starts `npm run demo-tracker -- <args>`; resolves with everything printed up to the line that starts the request log. */
function demoTracker(args: string[]): { child: Child; banner: Promise<string>; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn("npm", ["run", "demo-tracker", "--", ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once("close", (code) => resolve({ code, stderr })));
  const banner = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${TIMEOUT_MS} ms; so far:\n${stdout}${stderr}`)), TIMEOUT_MS);
    createInterface({ input: child.stdout }).on("line", (line) => {
      stdout += `${line}\n`;
      if (line.startsWith("Everything is kept in memory")) {
        clearTimeout(timer);
        resolve(stdout);
      }
    });
    void exit.then(({ code }) => reject(new Error(`exited (${code}) before the banner:\n${stdout}${stderr}`)));
  });
  // A test that expects no banner (a refused start) awaits only `exit`.
  banner.catch(() => undefined);
  return { child, banner, exit };
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("npm run demo-tracker", () => {
  it("prints how to point the service at it and the accounts, answers a login of one of them, and stops on SIGTERM", async () => {
    const demo = demoTracker(["--port", "0"]);
    const banner = await demo.banner;

    const apiUrl = /listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)\n/.exec(banner)?.[1];
    expect(apiUrl, banner).toBeDefined();
    expect(banner).toContain(`\n  SERVICE_TRACKER_API_URL=${apiUrl} npm start\n`);
    expect(banner).toContain("\n  alice / alice-demo   member of demo-folio, demo-website\n");
    expect(banner).toContain("\n  bob / bob-demo       member of demo-folio\n");
    expect(banner).toContain("\n  carol / carol-demo   member of demo-website\n");
    expect(banner).toContain(`\n    ${SAMPLE_DOCUMENT.split("\n").join("\n    ")}\n`);

    // The service's default login type is `ldap`: the printed command works without setting it.
    const login = await post(`${apiUrl}/auth`, { type: "ldap", username: "alice", password: "alice-demo" });
    expect({ status: login.status, username: login.body.username, fullName: login.body.full_name }).toEqual({ status: 200, username: "alice", fullName: "Alice Liddell" });
    expect(login.body.auth_token).toMatch(/^eyJ[\w-]{32}$/);
    const wrong = await post(`${apiUrl}/auth`, { type: "ldap", username: "alice", password: "bob-demo" });
    expect(wrong).toEqual({ status: 401, body: { detail: "No active account found with the given credentials", code: "invalid_credentials" } });

    demo.child.kill("SIGTERM");
    expect(await demo.exit).toEqual({ code: 0, stderr: "" });
  });

  it("refuses a port that is taken, and a wrong argument, in one line each", async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      expect(await demoTracker(["--port", String(port)]).exit).toEqual({
        code: 1,
        stderr: `port ${port} is in use: choose another with -- --port <n> (0 picks a free one)\n`,
      });
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
    expect(await demoTracker(["--port", "http"]).exit).toEqual({ code: 2, stderr: "usage: npm run demo-tracker [-- --port <0-65535>]   (0 picks a free port)\n" });
  });
});

describe("the demo world, through the service's tracker proxy", () => {
  it("resolves every ticket the sample document links, with the states the sample shows off", async () => {
    fake = await FakeTaiga.start();
    seedDemoWorld(fake);
    const apiUrl = fake.apiUrl;
    testApp = await buildTestApp({ config: (config) => void (config.tracker.apiUrl = apiUrl) });
    const { app } = testApp;
    const login = await app.inject({ method: "POST", url: "/api/v1/tracker/auth", payload: { username: "bob", password: "bob-demo" } });
    expect(login.statusCode).toBe(200);
    const token = login.json<{ authToken: string }>().authToken;

    const links = [...SAMPLE_DOCUMENT.matchAll(/#(US|T)-(\d+)/g)].map(([, kind, ref]) => ({ kind: kind === "US" ? "userstories" : "tasks", ref: Number(ref) }));
    const read = async ({ kind, ref }: { kind: string; ref: number }) => {
      const response = await app.inject({ method: "GET", url: `/api/v1/tracker/${kind}/${ref}?slug=${DEMO_PROJECT}`, headers: { "x-tracker-token": token } });
      const { subject, status, statusClosed, assignee } = response.json<Record<string, unknown>>();
      return { code: response.statusCode, ref, subject, status, statusClosed, assignee };
    };

    expect(await Promise.all(links.map(read))).toEqual([
      { code: 200, ref: 1, subject: "Sign-in page", status: "In progress", statusClosed: false, assignee: "Bob Builder" },
      { code: 200, ref: 2, subject: "Write the form", status: "New", statusClosed: false, assignee: "Bob Builder" },
      { code: 200, ref: 3, subject: "Check the password rules", status: "Closed", statusClosed: true, assignee: "Alice Liddell" },
      { code: 200, ref: 4, subject: "Export to Markdown", status: "New", statusClosed: false, assignee: undefined },
      { code: 200, ref: 5, subject: "Print view", status: "Done", statusClosed: true, assignee: "Alice Liddell" },
    ]);
  });
});
