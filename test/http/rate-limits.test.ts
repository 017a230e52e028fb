import type { LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Config } from "../../src/config/config.js";
import { buildTestApp, LIMITS_OFF, type TestApp } from "../support/test-app.js";
import { DOCUMENTS, T0_MS, basicAuth, checksum, createDocument, expectProblemRetryAfter, type DocumentJson } from "../support/http-expect.js";

// The rate limits (README, "Rate limits"): per client address, POST /documents by creates-per-minute,
// every other write under /api/v1 by writes-per-second; 429 `rate-limited` with Retry-After past
// them, before anything is written. The library reads Date.now(), so only Date is faked here: a
// window passes when the test moves the date, never by waiting.

let t: TestApp | undefined;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"], now: T0_MS });
});

afterEach(async () => {
  vi.useRealTimers();
  await t?.close();
  t = undefined;
});

async function appWith(limits: Partial<Config["rateLimit"]>, trustProxy: Config["server"]["trustProxy"] = false): Promise<TestApp> {
  t = await buildTestApp({
    config: (config) => {
      config.rateLimit = { ...LIMITS_OFF, ...limits };
      config.server.trustProxy = trustProxy;
    },
  });
  return t;
}

const create = (app: TestApp, headers: Record<string, string> = {}) =>
  app.app.inject({ method: "POST", url: DOCUMENTS, payload: { title: "Notes", content: "a\n" }, headers });

/** Asserts the exact 429 of a rate limit: status, type, Retry-After and body. */
function expectRateLimited(response: LightMyRequestResponse, detail: string, retryAfter: number, instance: string): void {
  expectProblemRetryAfter(response, { status: 429, code: "rate-limited", title: "Too many requests", detail, instance }, retryAfter);
}

const createsDetail = (max: number, seconds: number) => `more than ${max} documents created in a minute from this address; retry in ${seconds} s`;
const writesDetail = (max: number, seconds: number) => `more than ${max} writes in a second from this address; retry in ${seconds} s`;

async function documentCount(app: TestApp): Promise<number> {
  return (await app.store.listDocuments()).length;
}

describe("creates-per-minute", () => {
  it("refuses the create past the limit with 429 and Retry-After until the minute is over, and creates nothing", async () => {
    const app = await appWith({ createsPerMinute: 2, writesPerSecond: 0 });
    expect([(await create(app)).statusCode, (await create(app)).statusCode]).toEqual([201, 201]);

    expectRateLimited(await create(app), createsDetail(2, 60), 60, DOCUMENTS);
    vi.setSystemTime(T0_MS + 20_500);
    expectRateLimited(await create(app), createsDetail(2, 40), 40, DOCUMENTS);
    vi.setSystemTime(T0_MS + 59_999);
    expectRateLimited(await create(app), createsDetail(2, 1), 1, DOCUMENTS);
    expect(await documentCount(app)).toBe(2);

    vi.setSystemTime(T0_MS + 60_000);
    expect((await create(app)).statusCode).toBe(201);
    expect(await documentCount(app)).toBe(3);
  });

  it("does not count the other writes, and they do not count it", async () => {
    const app = await appWith({ createsPerMinute: 1, writesPerSecond: 1 });
    const document = await createDocument(app.app, { title: "Notes", content: "a\n" });
    const rename = await app.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${document.id}/title`, payload: { title: "Plan", expectedVersion: 1 } });
    expect(rename.statusCode).toBe(200);
    expectRateLimited(await create(app), createsDetail(1, 60), 60, DOCUMENTS);
  });
});

describe("writes-per-second", () => {
  it("counts every write method on every route together, refuses past the limit before anything is written, and never limits reads", async () => {
    const app = await appWith({ createsPerMinute: 0, writesPerSecond: 4 });
    const document = await createDocument(app.app, { title: "Notes", content: "a\n" });
    const url = `${DOCUMENTS}/${document.id}`;
    const writes = [
      await app.app.inject({ method: "PUT", url, payload: { title: "Notes", content: "b\n" } }),
      await app.app.inject({ method: "PATCH", url: `${url}/title`, payload: { title: "Plan", expectedVersion: 2 } }),
      await app.app.inject({
        method: "PATCH",
        url: `${url}/content`,
        payload: { baseVersion: 3, checksum: checksum("b\n"), clientId: "client-a", seq: 1, ops: [{ op: "insert", index: 1, lines: ["c"] }] },
      }),
      // A tracker write counts too (answered 503 here: no tracker is configured).
      await app.app.inject({ method: "POST", url: "/api/v1/tracker/auth", payload: { username: "ann", password: "secret" } }),
    ];
    expect(writes.map((response) => response.statusCode)).toEqual([200, 200, 200, 503]);

    expectRateLimited(await app.app.inject({ method: "DELETE", url }), writesDetail(4, 1), 1, url);
    expectRateLimited(await app.app.inject({ method: "PUT", url, payload: { title: "Lost", content: "x\n" } }), writesDetail(4, 1), 1, url);
    expectRateLimited(await app.app.inject({ method: "POST", url: `${url}/restore`, payload: { version: 1 } }), writesDetail(4, 1), 1, `${url}/restore`);
    const read = await app.app.inject({ method: "GET", url });
    expect({ status: read.statusCode, version: read.json<DocumentJson>().version, title: read.json<DocumentJson>().title }).toEqual({
      status: 200,
      version: 4,
      title: "Plan",
    });
    expect((await app.store.reads(document.id).document())?.version).toBe(4);
    // An unknown route writes nothing and is not limited: it is a 404.
    expect((await app.app.inject({ method: "POST", url: "/api/v1/nothing-here" })).statusCode).toBe(404);

    vi.setSystemTime(T0_MS + 1000);
    expect((await app.app.inject({ method: "DELETE", url })).statusCode).toBe(204);
  });

  it("keeps the list lock's 429 apart: the list is a read, and its lock has its own type", async () => {
    const app = await appWith({ createsPerMinute: 0, writesPerSecond: 1 });
    const wrong = basicAuth("admin", "guess");
    const answers = [];
    for (let attempt = 0; attempt < 6; attempt++) answers.push(await app.app.inject({ method: "GET", url: DOCUMENTS, headers: { authorization: wrong } }));
    expect(answers.map((response) => response.statusCode)).toEqual([401, 401, 401, 401, 401, 429]);
    expect(answers[5]?.json<{ type: string }>().type).toBe("urn:folio:problem:list-locked");
  });
});

describe("a limit of 0", () => {
  it("turns that limit off and leaves the other one on", async () => {
    const app = await appWith({ createsPerMinute: 0, writesPerSecond: 1 });
    const created = [];
    for (let count = 0; count < 100; count++) created.push((await create(app)).statusCode);
    expect(created).toEqual(Array.from({ length: 100 }, () => 201));
    const { id } = await createDocument(app.app, { title: "Notes", content: "a\n" });
    expect((await app.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${id}` })).statusCode).toBe(204);
    expect((await app.app.inject({ method: "POST", url: `${DOCUMENTS}/${id}/restore` })).statusCode).toBe(429);
  });

  it("turns every limit off when all are 0", async () => {
    const app = await appWith({ createsPerMinute: 0, writesPerSecond: 0 });
    const { id } = await createDocument(app.app, { title: "Notes", content: "a\n" });
    const statuses = [];
    for (let version = 1; version <= 100; version++) {
      const response = await app.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: { title: `Notes ${version}`, expectedVersion: version } });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual(Array.from({ length: 100 }, () => 200));
  });
});

describe("the client address", () => {
  const writeFrom = (app: TestApp, forwardedFor?: string) =>
    create(app, forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }).then((response) => response.statusCode);

  it("is the one in X-Forwarded-For when the proxy is trusted: each client behind it has its own count", async () => {
    const app = await appWith({ createsPerMinute: 1, writesPerSecond: 0 }, ["127.0.0.1"]);
    expect([await writeFrom(app, "203.0.113.5"), await writeFrom(app, "203.0.113.6"), await writeFrom(app, "198.51.100.7, 203.0.113.5")]).toEqual([201, 201, 429]);
    expect([await writeFrom(app, "203.0.113.6"), await writeFrom(app)]).toEqual([429, 201]);
  });

  it("is the proxy's when X-Forwarded-For is not believed: everybody behind it shares one count", async () => {
    const app = await appWith({ createsPerMinute: 1, writesPerSecond: 0 }, false);
    expect([await writeFrom(app, "203.0.113.5"), await writeFrom(app, "203.0.113.6")]).toEqual([201, 429]);
  });

  it("is the /64 for IPv6: the addresses of one host's network share a count", async () => {
    const app = await appWith({ createsPerMinute: 1, writesPerSecond: 0 }, true);
    expect([await writeFrom(app, "2001:db8::1"), await writeFrom(app, "2001:db8::ffff:2"), await writeFrom(app, "2001:db8:0:1::1")]).toEqual([201, 429, 201]);
  });
});
