import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResponse } from "../support/raw-http.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { createDocument, DOCUMENTS } from "../support/http-expect.js";

// server.request-timeout-seconds (docs/api.md, "Bounds"): a request whose headers or body do not
// arrive within it is answered 408 `request-timeout` and its connection closed; a connection that
// sends nothing is closed; a long poll, whose request arrived at once, waits as long as it asks.

const TIMEOUT_S = 2;
let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await buildTestApp({ config: (config) => (config.server.requestTimeoutSeconds = TIMEOUT_S) });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await t?.close();
});

/** Opens a connection, writes `first`, then `drip` every `everyMs` until the server closes it; what it answered and when. */
function dripping(first: string, drip: string, everyMs: number): Promise<{ answer: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket: Socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => socket.destroy(new Error("the server kept the connection for 20 s")), 20_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error) => (error.message.includes("20 s") ? reject(error) : undefined));
    socket.on("close", () => {
      clearInterval(timer);
      clearTimeout(guard);
      resolve({ answer: Buffer.concat(chunks), ms: performance.now() - started });
    });
    socket.write(first);
    if (drip !== "") timer = setInterval(() => socket.writable && socket.write(drip), everyMs);
  });
}

describe("the request timeout", () => {
  it("answers a body sent a byte at a time 408 request-timeout and closes the connection", async () => {
    const { id } = await createDocument(t.app, { title: "Slow", content: "a" });
    const head = `PUT ${DOCUMENTS}/${id} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`;
    const { answer, ms } = await dripping(head, " ", 300);
    const response = parseResponse(answer, false);
    expect({ status: response.status, type: response.headers["content-type"], body: JSON.parse(response.body.toString()) as unknown }).toEqual({
      status: 408,
      type: "application/problem+json; charset=utf-8",
      body: { type: "urn:folio:problem:request-timeout", title: "Request timeout", status: 408, detail: "the request did not arrive in time", instance: "" },
    });
    expect(response.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ms).toBeGreaterThan(TIMEOUT_S * 1000 - 100);
    expect(ms).toBeLessThan(TIMEOUT_S * 1000 + 2500);
  });

  it("closes a connection that sends headers a byte at a time, or nothing at all", async () => {
    const headers = await dripping("GET /api/v1/info HTTP/1.1\r\nHost: x\r\n", "X", 300);
    expect(headers.ms).toBeLessThan(TIMEOUT_S * 1000 + 2500);
    const silent = await dripping("", "", 0);
    expect(silent.ms).toBeLessThan(TIMEOUT_S * 1000 + 2500);
    expect(parseResponse(silent.answer, false).status).toBe(408);
  });

  it("leaves a long poll alone: it waits longer than the timeout and gets its 204", async () => {
    const { id, version } = await createDocument(t.app, { title: "Waiting", content: "a" });
    const started = performance.now();
    const poll = fetch(`http://127.0.0.1:${port}${DOCUMENTS}/${id}/changes?since=${version}&wait=30`);
    // The feed waits on the test's clock: it runs out once the real time is well past the request timeout.
    await new Promise((resolve) => setTimeout(resolve, (TIMEOUT_S + 2) * 1000));
    t.clock.advance(30_000);
    expect((await poll).status).toBe(204);
    expect(performance.now() - started).toBeGreaterThan((TIMEOUT_S + 2) * 1000 - 100);
  }, 15_000);
});
