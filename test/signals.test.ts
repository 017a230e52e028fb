import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { send } from "./support/held-request.js";
import { REPO_ROOT, ensureBuilt, startCommand, startProcess, type LogLine, type ServerProcess, processesPerTest } from "./support/server-process.js";

// A stop drains under any supervisor (README, "Stopping"): SIGTERM or SIGINT to the server, to
// `npm start` (npm stays the server's parent and passes the signal on) or to the whole process
// group (systemd's KillMode=control-group, `timeout`, Ctrl+C in a terminal: the server gets the
// signal from the kernel and once more from npm), once or again and again. In every case a waiting
// long poll gets its 204, a write in flight its 200, the log says "closed cleanly" and the exit is 0.
// The double delivery is a race, so each case where the server may get the signal twice runs several rounds.

const ROUNDS = 3;
const TIMEOUT_MS = 20_000;

type Target = "server" | "npm" | "group";

const work = processesPerTest("folio-signals-", { emptyConfigFile: true });

beforeAll(() => {
  ensureBuilt();
}, 130_000);

/** The server on its own (as a supervisor runs `node dist/server.js`), or under `npm start`; either leads its own process group. */
function start(target: Target, round: number, extra: Record<string, string> = {}): ServerProcess {
  const env = { SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: `sqlite:${join(work.dir, `round-${round}.db`)}`, LOG_LEVEL: "debug", ...extra };
  const server =
    target === "server"
      ? startProcess("src/server.ts", env, work.dir, [], { ownGroup: true })
      : startCommand("npm", ["start"], { ...env, HOME: work.dir, SERVICE_CONFIG_FILE: join(work.dir, "empty.yaml") }, REPO_ROOT, { ownGroup: true });
  work.track(server);
  return server;
}

function deliver(server: ServerProcess, target: Target, signal: NodeJS.Signals): void {
  if (target === "group") server.signalGroup(signal);
  else server.child.kill(signal);
}

const isMessage = (text: string) => (line: LogLine) => line.msg === text;
const repeats = (server: ServerProcess) => server.lines.filter(isMessage("already shutting down; the drain goes on")).length;

/** Waits until the server has logged more repeated signals than `seen`; returns how many it has. */
async function nextRepeat(server: ServerProcess, seen: number): Promise<number> {
  await server.waitForLine(() => repeats(server) > seen, TIMEOUT_MS);
  return repeats(server);
}

/** One start and stop: `deliveries` signals while a long poll waits and a write is in flight. */
async function drainRound(target: Target, signal: NodeJS.Signals, deliveries: number, round: number): Promise<void> {
  const server = start(target, round);
  const listening = await server.waitForLine((line) => line.msg.startsWith("listening on "), TIMEOUT_MS);
  const address = new URL(String(listening.address));
  const created = await send(address, "POST", "/api/v1/documents", { body: JSON.stringify({ title: "Plan", content: "a\n" }) }).answer;
  expect(created.status).toBe(201);
  const { id } = JSON.parse(created.body) as { id: string };

  const poll = send(address, "GET", `/api/v1/documents/${id}/changes?since=1&wait=30`);
  const content = "typed while the service stops\n".repeat(100);
  const write = send(address, "PUT", `/api/v1/documents/${id}`, { body: JSON.stringify({ title: "Plan", content }), hold: true });
  await server.waitForLine((line) => line.msg === "request received" && line.method === "PUT", TIMEOUT_MS);
  await server.waitForLine((line) => line.msg === "request received" && line.method === "GET" && String(line.route).endsWith("/changes"), TIMEOUT_MS);

  deliver(server, target, signal);
  await server.waitForLine(isMessage("shutting down: finishing in-flight requests"), TIMEOUT_MS);
  // To the group the server gets each signal twice, from the kernel and from npm, unless the two
  // arrive so close together that the kernel delivers them as one: no test can wait for the second.
  for (let again = 1; again < deliveries; again++) {
    const seen = repeats(server);
    deliver(server, target, signal);
    await nextRepeat(server, seen);
  }

  const polled = await poll.answer;
  expect({ status: polled.status, body: polled.body }).toEqual({ status: 204, body: "" });
  write.rest();
  const written = await write.answer;
  expect({ status: written.status, version: (JSON.parse(written.body) as { version: number }).version }).toEqual({ status: 200, version: 2 });

  expect(await server.waitForExit(TIMEOUT_MS)).toEqual({ code: 0, signal: null });
  const messages = server.lines.map((line) => line.msg);
  expect(messages.filter((message) => message === "shutting down: finishing in-flight requests")).toHaveLength(1);
  expect(messages).toContain("closed cleanly");
  expect(server.lines.find(isMessage("already shutting down; the drain goes on"))?.signal ?? signal).toBe(signal);
}

describe.each<Target>(["server", "npm", "group"])("a stop through the %s", (target) => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    for (const deliveries of [1, 3]) {
      // One signal to the server or to npm alone reaches the server once: no race, one round.
      const rounds = deliveries > 1 || target === "group" ? ROUNDS : 1;
      it(`drains on ${signal} ${deliveries === 1 ? "once" : `${deliveries} times`}, ${rounds} round${rounds > 1 ? "s" : ""}`, { timeout: rounds * TIMEOUT_MS }, async () => {
        for (let round = 0; round < rounds; round++) await drainRound(target, signal, deliveries, round);
      });
    }
  }
});

describe("the drain's limit", () => {
  it("is what ends a drain that does not finish, however many signals came before", async () => {
    const server = start("server", 0, { SERVER_SHUTDOWN_TIMEOUT_SECONDS: "1" });
    const address = new URL(String((await server.waitForLine((line) => line.msg.startsWith("listening on "), TIMEOUT_MS)).address));
    // A create whose body never completes holds the drain.
    const stuck = send(address, "POST", "/api/v1/documents", { body: JSON.stringify({ title: "Never", content: "sent\n" }), hold: true });
    await server.waitForLine((line) => line.msg === "request received" && line.method === "POST", TIMEOUT_MS);

    server.child.kill("SIGTERM");
    await server.waitForLine(isMessage("shutting down: finishing in-flight requests"), TIMEOUT_MS);
    let seen = 0;
    for (const signal of ["SIGTERM", "SIGINT", "SIGTERM"] as const) {
      server.child.kill(signal);
      seen = await nextRepeat(server, seen);
    }

    expect(await server.waitForExit(TIMEOUT_MS)).toEqual({ code: 1, signal: null });
    expect(server.lines.map((line) => line.msg).slice(-4)).toEqual([
      "already shutting down; the drain goes on",
      "already shutting down; the drain goes on",
      "already shutting down; the drain goes on",
      "shutdown took longer than 1 s; exiting",
    ]);
    await expect(stuck.answer).rejects.toThrow();
    expect(await server.waitForLine(isMessage("already shutting down; the drain goes on"), TIMEOUT_MS)).toMatchObject({ signal: "SIGTERM", limitSeconds: 1 });
  });
});
