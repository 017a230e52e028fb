import type { AddressInfo } from "node:net";
import type { LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Config } from "../../src/config/config.js";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";
import { addressKey } from "../../src/http/wait-limit.js";
import { BODY_UNIT_BYTES, COST_UNIT_BYTES } from "../../src/http/rate-limits.js";
import { buildTestApp, LIMITS_OFF, type TestApp } from "../support/test-app.js";
import { DOCUMENTS, T0_MS, createDocument, expectProblemRetryAfter } from "../support/http-expect.js";

// The limits of reads, waits and the tracker proxy (README, "Rate limits"): reads-per-second per
// address, waits-per-address (long polls held at once), tracker-reads-per-second and
// tracker-logins-per-minute (per address and per user name). Only Date is faked for the window
// limits: a window passes when the test moves the date.

let t: TestApp | undefined;
let fake: FakeTaiga | undefined;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"], now: T0_MS });
});

afterEach(async () => {
  vi.useRealTimers();
  await t?.close();
  await fake?.close();
  t = undefined;
  fake = undefined;
});

async function appWith(limits: Partial<Config["rateLimit"]>, tracker = false): Promise<TestApp> {
  fake = tracker ? await FakeTaiga.start() : undefined;
  t = await buildTestApp({
    config: (config) => {
      config.rateLimit = { ...LIMITS_OFF, ...limits };
      config.server.trustProxy = true;
      if (fake) config.tracker.apiUrl = fake.apiUrl;
    },
  });
  return t;
}

function expectRateLimited(response: LightMyRequestResponse, detail: string, retryAfter: number, instance: string): void {
  expectProblemRetryAfter(response, { status: 429, code: "rate-limited", title: "Too many requests", detail, instance }, retryAfter);
}

const from = (address: string) => ({ "x-forwarded-for": address });

describe("reads-per-second", () => {
  it("counts every GET and HEAD under /api/v1 of an address together, and not another address's or the writes", async () => {
    const app = await appWith({ readsPerSecond: 3, writesPerSecond: 0 });
    const { id } = await createDocument(app.app, { title: "Notes", content: "a\n" });
    const url = `${DOCUMENTS}/${id}`;
    const answers = [
      await app.app.inject({ method: "GET", url, headers: from("203.0.113.1") }),
      await app.app.inject({ method: "HEAD", url: `${url}/history`, headers: from("203.0.113.1") }),
      await app.app.inject({ method: "GET", url: `${url}/changes?since=0&wait=0`, headers: from("203.0.113.1") }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    expectRateLimited(await app.app.inject({ method: "GET", url: "/api/v1/info", headers: from("203.0.113.1") }), "more than 3 reads in a second from this address; retry in 1 s", 1, "/api/v1/info");
    expect((await app.app.inject({ method: "GET", url, headers: from("203.0.113.2") })).statusCode).toBe(200);
    expect((await app.app.inject({ method: "PATCH", url: `${url}/title`, payload: { title: "Plan", expectedVersion: 1 }, headers: from("203.0.113.1") })).statusCode).toBe(200);
    // The page and the health checks are outside /api/v1: never counted.
    expect((await app.app.inject({ method: "GET", url: "/health/live", headers: from("203.0.113.1") })).statusCode).toBe(200);
    vi.setSystemTime(T0_MS + 1000);
    expect((await app.app.inject({ method: "GET", url, headers: from("203.0.113.1") })).statusCode).toBe(200);
  });
});

describe("the cost of a request", () => {
  // A little over three units: every request on it costs four.
  const big = "x".repeat(3 * COST_UNIT_BYTES + 100);

  it("counts a read of a document larger than 64 KiB as one read per 64 KiB begun, and an answer larger than its count afterwards", async () => {
    const app = await appWith({ readsPerSecond: 10 });
    const { id } = await createDocument(app.app, { title: "Big", content: big });
    const read = () => app.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}`, headers: from("203.0.113.9") });
    // 4 units each (3 × 64 KiB of text and the rest of the body): 0 → 4 → 8 → 12, then refused.
    expect([(await read()).statusCode, (await read()).statusCode, (await read()).statusCode]).toEqual([200, 200, 200]);
    expectRateLimited(await read(), "more than 10 reads in a second from this address; retry in 1 s", 1, `${DOCUMENTS}/${id}`);
    vi.setSystemTime(T0_MS + 1000);
    // A history of two full texts: four units at arrival (the document), and its answer (seven units) three more afterwards.
    expect((await app.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title: "Big", content: `${big}!` } })).statusCode).toBe(200);
    const history = await app.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/history`, headers: from("203.0.113.10") });
    expect(history.json<unknown[]>().length).toBe(2);
    const info = [];
    for (let read = 0; read < 5; read++) info.push((await app.app.inject({ method: "GET", url: "/api/v1/info", headers: from("203.0.113.10") })).statusCode);
    expect(info).toEqual([200, 200, 200, 429, 429]);
  });

  it("counts a write to a document larger than 64 KiB as one write per 64 KiB begun, and a body as one per 4 KiB, carrying what it took past the limit into the next windows", async () => {
    const app = await appWith({ writesPerSecond: 10 });
    const { id } = await createDocument(app.app, { title: "Big", content: big });
    const rename = (version: number) =>
      app.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: { title: `Big ${version}`, expectedVersion: version }, headers: from("203.0.113.9") });
    expect([(await rename(1)).statusCode, (await rename(2)).statusCode, (await rename(3)).statusCode]).toEqual([200, 200, 200]);
    expectRateLimited(await rename(4), "more than 10 writes in a second from this address; retry in 1 s", 1, `${DOCUMENTS}/${id}/title`);
    vi.setSystemTime(T0_MS + 1000);
    const small = await createDocument(app.app, { title: "Small", content: "a" });
    const put = (content: string) => app.app.inject({ method: "PUT", url: `${DOCUMENTS}/${small.id}`, payload: { title: "Small", content }, headers: from("203.0.113.11") });
    // 36 KiB of body: 9 units and the rest of the JSON, 10 in all: the window is used up.
    expect((await put("x".repeat(9 * BODY_UNIT_BYTES))).statusCode).toBe(200);
    expect((await put("b")).statusCode).toBe(429);
    // 160 KiB: 40 units (and the JSON's few bytes, 41), in a fresh window: let in, and then it keeps
    // its sender waiting for the four windows it used past its own.
    vi.setSystemTime(T0_MS + 2000);
    expect((await put("x".repeat(40 * BODY_UNIT_BYTES))).statusCode).toBe(200);
    vi.setSystemTime(T0_MS + 5000);
    expect((await put("b")).statusCode).toBe(429);
    vi.setSystemTime(T0_MS + 6000);
    expect((await put("b")).statusCode).toBe(200);
  });
});

describe("waits-per-address", () => {
  it("holds at most that many long polls of one address at once, answers the next 429 before it waits, and counts a poll until its answer", async () => {
    vi.useRealTimers();
    const app = await appWith({ waitsPerAddress: 2 });
    const { id } = await createDocument(app.app, { title: "Notes", content: "a\n" });
    await app.app.listen({ host: "127.0.0.1", port: 0 });
    const base = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
    const poll = (address: string, wait = 30) => fetch(`${base}${DOCUMENTS}/${id}/changes?since=1&wait=${wait}`, { headers: from(address) });
    const held = [poll("198.51.100.1"), poll("198.51.100.1")];
    await vi.waitFor(() => expect(app.services.hub.stats().waiters).toBe(2));
    const refused = await poll("198.51.100.1");
    expect({ status: refused.status, retryAfter: refused.headers.get("retry-after"), body: await refused.json() }).toEqual({
      status: 429,
      retryAfter: "1",
      body: {
        type: "urn:folio:problem:rate-limited",
        title: "Too many requests",
        status: 429,
        detail: "more than 2 waiting requests at once from this address; retry in 1 s",
        instance: `${DOCUMENTS}/${id}/changes`,
      },
    });
    // Another address has a count of its own; a poll answered at once frees its place when it is answered.
    const other = poll("198.51.100.2", 0);
    expect((await other).status).toBe(204);
    // A change answers the two held polls; then the address may wait again.
    expect((await app.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: { title: "Plan", expectedVersion: 1 } })).statusCode).toBe(200);
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200]);
    await vi.waitFor(() => expect(app.services.hub.stats().waiters).toBe(0));
    expect((await poll("198.51.100.1", 0)).status).toBe(200);
  });

  it("counts IPv6 clients by their /64 and IPv4-mapped ones as IPv4", () => {
    expect(["2001:db8::1", "2001:db8:0:0:ffff::2", "2001:db8:0:1::1", "::ffff:192.0.2.7", "192.0.2.7", "fe80::1%eth0", "::1"].map(addressKey)).toEqual([
      "2001:db8:0:0::/64",
      "2001:db8:0:0::/64",
      "2001:db8:0:1::/64",
      "192.0.2.7",
      "192.0.2.7",
      "fe80:0:0:0::/64",
      "0:0:0:0::/64",
    ]);
  });
});

describe("the tracker proxy's limits", () => {
  it("tracker-reads-per-second: counts the proxy's reads per address before any upstream call", async () => {
    const app = await appWith({ trackerReadsPerSecond: 2 }, true);
    const read = (address: string) =>
      app.app.inject({ method: "GET", url: "/api/v1/tracker/userstories/1?slug=none", headers: { ...from(address), "x-tracker-token": "made-up" } });
    expect([(await read("192.0.2.1")).statusCode, (await read("192.0.2.1")).statusCode]).toEqual([401, 401]);
    const calls = fake!.requests.length;
    expectRateLimited(await read("192.0.2.1"), "more than 2 tracker reads in a second from this address; retry in 1 s", 1, "/api/v1/tracker/userstories/1");
    expect(fake!.requests.length).toBe(calls);
    expect((await read("192.0.2.2")).statusCode).toBe(401);
  });

  it("tracker-logins-per-minute: per address, and per user name across addresses, whatever its case", async () => {
    const app = await appWith({ trackerLoginsPerMinute: 2 }, true);
    const login = (address: string, username: string) =>
      app.app.inject({ method: "POST", url: "/api/v1/tracker/auth", headers: from(address), payload: { username, password: "guess" } });
    expect([(await login("192.0.2.1", "alice")).statusCode, (await login("192.0.2.1", "bob")).statusCode]).toEqual([400, 400]);
    expectRateLimited(await login("192.0.2.1", "carol"), "more than 2 tracker logins in a minute from this address; retry in 60 s", 60, "/api/v1/tracker/auth");
    // Alice's name has had one guess; a second from elsewhere passes, a third (any case) does not.
    expect((await login("192.0.2.2", "ALICE")).statusCode).toBe(400);
    const calls = fake!.requests.length;
    expectRateLimited(await login("192.0.2.3", "Alice"), "more than 2 tracker logins in a minute for this user name; retry in 60 s", 60, "/api/v1/tracker/auth");
    expect(fake!.requests.length).toBe(calls);
    vi.setSystemTime(T0_MS + 60_000);
    expect((await login("192.0.2.3", "alice")).statusCode).toBe(400);
  });
});
