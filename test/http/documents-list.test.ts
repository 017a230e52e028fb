import bcrypt from "bcryptjs";
import { hash as argon2Hash } from "@node-rs/argon2";
import type { LightMyRequestResponse } from "fastify";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { Store } from "../../src/storage/store.js";
import { ManualClock } from "../support/manual-clock.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { BASIC_CHALLENGE, PROBLEM_TYPE, T0, at, basicAuth, createDocument, expectJson, expectProblemRetryAfter } from "../support/http-expect.js";

const LIST = "/api/v1/documents";
const PASSWORD = "correct horse battery staple";
const BCRYPT_HASH = bcrypt.hashSync(PASSWORD, 4);
let argon2idHash: string;

beforeAll(async () => {
  argon2idHash = await argon2Hash(PASSWORD);
});

let t: TestApp | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** An app whose list is guarded by `hash` (none: deny all), locking after 3 failures for 60 s. */
async function appWith(hash: string | undefined, store?: Store, clock?: ManualClock): Promise<TestApp> {
  t = await buildTestApp({
    ...(store ? { store } : {}),
    ...(clock ? { clock } : {}),
    config: (config) => {
      config.masterPassword.hash = hash;
      config.masterPassword.maxFailures = 3;
      config.masterPassword.lockSeconds = 60;
    },
  });
  return t;
}

function list(app: TestApp, authorization?: string, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return app.app.inject({
    method: "GET",
    url: LIST,
    headers: authorization === undefined ? {} : { authorization },
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
  });
}

const right = basicAuth("admin", PASSWORD);
const wrong = basicAuth("admin", "not the password");

/** Asserts the exact 401 answer: the Basic challenge and the problem body. */
function expectUnauthorized(response: LightMyRequestResponse, detail = "user or password is wrong"): void {
  expect({
    status: response.statusCode,
    contentType: response.headers["content-type"],
    challenge: response.headers["www-authenticate"],
    retryAfter: response.headers["retry-after"],
    body: response.json<unknown>(),
  }).toEqual({
    status: 401,
    contentType: PROBLEM_TYPE,
    challenge: BASIC_CHALLENGE,
    retryAfter: undefined,
    body: { type: "urn:folio:problem:credentials-required", title: "Credentials missing or wrong", status: 401, detail, instance: LIST },
  });
}

/** Asserts the exact 429 answer with `Retry-After` in whole seconds. */
function expectLocked(response: LightMyRequestResponse, seconds: number): void {
  const detail = `too many failed attempts; try again in ${seconds} s`;
  expectProblemRetryAfter(response, { status: 429, code: "list-locked", title: "Document list locked", detail, instance: LIST }, seconds);
}

/** Fails `count` times in a row, asserting each failure is a plain 401. */
async function failTimes(app: TestApp, count: number): Promise<void> {
  for (let attempt = 0; attempt < count; attempt++) expectUnauthorized(await list(app, wrong));
}

describe("GET /documents: the list", () => {
  it("answers 200 with every existing document oldest first, with full content, deleted ones left out", async () => {
    const app = await appWith(BCRYPT_HASH);
    const first = await createDocument(app.app, { title: "First", content: "one\ntwo" });
    app.clock.advance(1000);
    const doomed = await createDocument(app.app, { title: "Doomed", content: "x" });
    app.clock.advance(1000);
    const third = await createDocument(app.app, { title: "Third", content: "" });
    app.clock.advance(1000);
    await app.app.inject({ method: "DELETE", url: `${LIST}/${doomed.id}` });
    await app.app.inject({ method: "PUT", url: `${LIST}/${first.id}`, payload: { title: "First", content: "one\ntwo\nthree" } });

    const response = await list(app, right);

    expectJson(response, 200, [
      { id: first.id, title: "First", content: "one\ntwo\nthree", version: 2, createdAt: T0, updatedAt: at(3000) },
      { id: third.id, title: "Third", content: "", version: 1, createdAt: at(2000), updatedAt: at(2000) },
    ]);
  });

  it("answers 200 with an empty array when there is no document", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectJson(await list(app, right), 200, []);
  });

  it("lists a restored document again", async () => {
    const app = await appWith(BCRYPT_HASH);
    const created = await createDocument(app.app, { title: "Back", content: "b" });
    await app.app.inject({ method: "DELETE", url: `${LIST}/${created.id}` });
    await app.app.inject({ method: "POST", url: `${LIST}/${created.id}/restore` });

    expectJson(await list(app, right), 200, [{ id: created.id, title: "Back", content: "b", version: 3, createdAt: T0, updatedAt: T0 }]);
  });
});

describe("GET /documents: the master password", () => {
  it("accepts the password against a bcrypt hash", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectJson(await list(app, right), 200, []);
  });

  it("accepts the password against a {bcrypt}-prefixed hash", async () => {
    const app = await appWith(`{bcrypt}${BCRYPT_HASH}`);

    expectJson(await list(app, right), 200, []);
  });

  it("accepts the password against an argon2id hash", async () => {
    expect(argon2idHash).toMatch(/^\$argon2id\$/);
    const app = await appWith(argon2idHash);

    expectJson(await list(app, right), 200, []);
  });

  it("decodes the credentials as UTF-8 and splits them at the first colon only", async () => {
    const password = "pä:ss wörd";
    const app = await appWith(bcrypt.hashSync(password, 4));

    expectJson(await list(app, basicAuth("admin", password)), 200, []);
  });

  it("accepts the scheme name in any case", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectJson(await list(app, right.replace("Basic", "bAsIc")), 200, []);
  });

  it("answers 401 with the Basic challenge for a wrong password", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectUnauthorized(await list(app, wrong));
  });

  it("answers 401 for a wrong password against an argon2id hash", async () => {
    const app = await appWith(argon2idHash);

    expectUnauthorized(await list(app, wrong));
  });

  it("answers 401 for the right password under a user other than admin", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectUnauthorized(await list(app, basicAuth("root", PASSWORD)));
  });

  it("answers 401 without credentials", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectUnauthorized(await list(app));
  });

  it.each([
    ["another scheme", `Bearer ${Buffer.from(`admin:${PASSWORD}`).toString("base64")}`],
    ["a token that is not base64", "Basic !!!not-base64!!!"],
    ["no token after the scheme", "Basic "],
    ["credentials without a colon", `Basic ${Buffer.from(`admin${PASSWORD}`).toString("base64")}`],
  ])("answers 401 for a malformed Authorization header: %s", async (_name, authorization) => {
    const app = await appWith(BCRYPT_HASH);

    expectUnauthorized(await list(app, authorization));
  });

  it("locks the list for everybody when no hash is configured, even for a password", async () => {
    const app = await appWith(undefined);

    expectUnauthorized(await list(app, right), "the document list is locked: no master password is configured");
    expectUnauthorized(await list(app, basicAuth("admin", "")), "the document list is locked: no master password is configured");
  });
});

describe("GET /documents: the global lock", () => {
  it("answers 429 to the right password after max-failures consecutive failures, with the whole lock time in Retry-After", async () => {
    const app = await appWith(BCRYPT_HASH);
    await failTimes(app, 3);

    expectLocked(await list(app, right), 60);
  });

  it("gives the remaining whole seconds rounded up in Retry-After", async () => {
    const app = await appWith(BCRYPT_HASH);
    await failTimes(app, 3);

    app.clock.advance(12_500);
    expectLocked(await list(app, right), 48);

    app.clock.advance(47_001);
    expectLocked(await list(app, right), 1);
  });

  it("answers 429 without credentials and with wrong ones while locked", async () => {
    const app = await appWith(BCRYPT_HASH);
    await failTimes(app, 3);

    expectLocked(await list(app), 60);
    expectLocked(await list(app, wrong), 60);
  });

  it("does not extend the lock for failures during it", async () => {
    const app = await appWith(BCRYPT_HASH);
    await failTimes(app, 3);

    app.clock.advance(30_000);
    for (let attempt = 0; attempt < 5; attempt++) expectLocked(await list(app, wrong), 30);
    app.clock.advance(29_999);
    expectLocked(await list(app, right), 1);
    app.clock.advance(1);

    expectJson(await list(app, right), 200, []);
  });

  it("lets the right password in once the lock has expired, and counts failures afresh", async () => {
    const app = await appWith(BCRYPT_HASH);
    await failTimes(app, 3);
    app.clock.advance(60_000);

    await failTimes(app, 2);
    expectJson(await list(app, right), 200, []);
  });

  it("locks again after max-failures further failures once an earlier lock has expired", async () => {
    const app = await appWith(BCRYPT_HASH);
    await failTimes(app, 3);
    app.clock.advance(60_000);

    await failTimes(app, 3);

    expectLocked(await list(app, right), 60);
  });

  it("resets the count of failures on a success", async () => {
    const app = await appWith(BCRYPT_HASH);
    await failTimes(app, 2);
    expectJson(await list(app, right), 200, []);

    await failTimes(app, 2);

    expectJson(await list(app, right), 200, []);
  });

  it("holds across client addresses: the lock is global", async () => {
    const app = await appWith(BCRYPT_HASH);
    expectUnauthorized(await list(app, wrong, "192.0.2.1"));
    expectUnauthorized(await list(app, wrong, "192.0.2.2"));
    expectUnauthorized(await list(app, wrong, "192.0.2.3"));

    expectLocked(await list(app, right, "198.51.100.7"), 60);
  });

  it("counts the attempts of the deny-all configuration too, and then answers 429", async () => {
    const app = await appWith(undefined);
    for (let attempt = 0; attempt < 3; attempt++) {
      expectUnauthorized(await list(app, right), "the document list is locked: no master password is configured");
    }

    expectLocked(await list(app, right), 60);
  });
});

describe("GET /documents: attempts in parallel", () => {
  /**
   * A store on which the list gets locked right after the first read of the lock, as if attempts
   * running in parallel (here or on another instance) reached the limit while this one's hash
   * comparison was still under way.
   */
  function storeLockedAfterFirstRead(clock: ManualClock): Store {
    const inner = SqliteStore.open(":memory:");
    let armed = true;
    return new Proxy(inner, {
      get(target, property) {
        if (property === "getListLock") {
          return async () => {
            const state = await target.getListLock();
            if (armed) {
              armed = false;
              await target.recordListFailure(clock.now(), 1, 60_000);
            }
            return state;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  it("refuses the right password with 429 when the list got locked while its hash was compared", async () => {
    const clock = new ManualClock();
    const app = await appWith(BCRYPT_HASH, storeLockedAfterFirstRead(clock), clock);

    expectLocked(await list(app, right), 60);
  });

  it("answers a wrong password with 429 too when the list got locked while its hash was compared", async () => {
    const clock = new ManualClock();
    const app = await appWith(BCRYPT_HASH, storeLockedAfterFirstRead(clock), clock);

    expectLocked(await list(app, wrong), 60);
  });
});
