import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { send } from "./support/held-request.js";
import { startProcess, type ServerProcess } from "./support/server-process.js";

// The SIGTERM drain must not reset keep-alive clients: every answer sent while draining says
// `Connection: close`, so the client opens a new connection for its next request instead of
// sending it on a socket the server is about to close (ECONNRESET; a load balancer that does not
// retry a PATCH shows the user a 502).

const STARTUP_MS = 20_000;

let dir: string;
let server: ServerProcess | undefined;
let agent: Agent | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "folio-drain-"));
});

afterEach(() => {
  agent?.destroy();
  server?.kill();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe("the SIGTERM drain", () => {
  it("answers in-flight requests with Connection: close, and a keep-alive client's next request gets no reset", async () => {
    server = startProcess(
      "src/server.ts",
      { SERVER_HOST: "127.0.0.1", SERVER_PORT: "0", SERVICE_STORAGE_URL: `sqlite:${join(dir, "service.db")}`, LOG_LEVEL: "debug" },
      dir,
    );
    const address = new URL(String((await server.waitForLine((line) => line.msg.startsWith("listening on "), STARTUP_MS)).address));
    agent = new Agent({ keepAlive: true, maxSockets: 2 });

    const created = await send(address, "POST", "/api/v1/documents", { body: JSON.stringify({ title: "Plan", content: "a" }), agent }).answer;
    const { id } = JSON.parse(created.body) as { id: string };
    expect({ status: created.status, connection: created.headers.connection }).toEqual({ status: 201, connection: "keep-alive" });

    // Two requests in flight on the agent's two sockets when SIGTERM arrives: a long poll (answered
    // 204 at once by the drain) and a write whose body is still on its way (answered after it).
    const poll = send(address, "GET", `/api/v1/documents/${id}/changes?since=1&wait=30`, { agent });
    const write = send(address, "PUT", `/api/v1/documents/${id}`, {
      body: JSON.stringify({ title: "Plan", content: "during the drain\n".repeat(100) }),
      hold: true,
      agent,
    });
    await server.waitForLine((line) => line.msg === "request received" && line.method === "PUT", STARTUP_MS);
    server.child.kill("SIGTERM");
    await server.waitForLine((line) => line.msg === "shutting down: finishing in-flight requests", STARTUP_MS);

    const polled = await poll.answer;
    expect({ status: polled.status, connection: polled.headers.connection }).toEqual({ status: 204, connection: "close" });
    write.rest();
    const written = await write.answer;
    expect({ status: written.status, connection: written.headers.connection }).toEqual({ status: 200, connection: "close" });

    // The next request needs a new connection: the listener is closed (refused) or, in the moment
    // before it closes, the request gets a 503 problem that also says Connection: close. Never a reset.
    const next = await send(address, "GET", "/api/v1/info", { agent }).answer.then(
      (answer) => ({ status: answer.status, type: answer.headers["content-type"], connection: answer.headers.connection }),
      (error: NodeJS.ErrnoException) => ({ error: error.code }),
    );
    expect([{ error: "ECONNREFUSED" }, { status: 503, type: "application/problem+json; charset=utf-8", connection: "close" }]).toContainEqual(next);

    expect(await server.waitForExit(STARTUP_MS)).toEqual({ code: 0, signal: null });
  });
});
