import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { BASIC_CHALLENGE, basicAuth, expectJson, expectProblemRetryAfter } from "../support/http-expect.js";
import { BCRYPT_HASH, LIST, NO_CREDENTIALS, PASSWORD, expectLocked, expectUnauthorized, failTimes, list, listAppPerTest, right, wrong } from "../support/document-list.js";

/* GET /documents: the global lock after max-failures failed attempts, also when attempts run in parallel. The list and the password: documents-list.test.ts. */

const appWith = listAppPerTest();

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
    // HEAD too: the lock is for everybody.
    expect((await app.app.inject({ method: "HEAD", url: LIST })).statusCode).toBe(429);
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

describe("GET /documents: only attempts count", () => {
  it("never counts a request without Basic credentials, with another scheme, a malformed one, or a HEAD, however many come", async () => {
    const app = await appWith(BCRYPT_HASH);
    const noAttempts = [undefined, "Bearer abc.def.ghi", "Basic !!!", "Digest username=admin"];
    for (let round = 0; round < 10; round++) {
      for (const authorization of noAttempts) expectUnauthorized(await list(app, authorization), NO_CREDENTIALS);
      const head = await app.app.inject({ method: "HEAD", url: LIST, headers: { authorization: right } });
      expect([head.statusCode, head.headers["www-authenticate"]]).toEqual([401, BASIC_CHALLENGE]);
    }
    expect(await app.store.getListLock()).toEqual({ failures: 0, lockedUntil: 0 });
    expectJson(await list(app, right), 200, []);
  });
});

describe("GET /documents: attempts in parallel", () => {
  it("compares at most max-failures of many parallel guesses and refuses the rest unchecked: the right one among them is refused too", async () => {
    const app = await appWith(BCRYPT_HASH);
    // Two comparisons run at once; the others are refused at once (list-busy) or find the lock.
    const guesses = Array.from({ length: 20 }, (_, index) => (index === 9 ? right : basicAuth("admin", `guess ${index}`)));
    const answers = await Promise.all(guesses.map((authorization) => list(app, authorization)));
    const kinds = answers.map((answer) => (answer.statusCode === 429 ? answer.json<{ type: string }>().type.replace("urn:folio:problem:", "") : String(answer.statusCode)));
    expect(kinds.filter((kind) => kind === "401").length).toBeLessThanOrEqual(3);
    expect(kinds.every((kind) => ["401", "list-busy", "list-locked"].includes(kind))).toBe(true);
    expect(answers[9]?.statusCode).not.toBe(200);
    // Sequential guesses meet the limit at max-failures, with the lock's full time.
    for (let attempt = (await app.store.getListLock()).failures; attempt < 3; attempt++) expectUnauthorized(await list(app, wrong));
    expectLocked(await list(app, right), 60);
  });

  it("answers list-busy, 429 with Retry-After 1, when every comparison slot is taken, and counts nothing for it", async () => {
    const app = await appWith(BCRYPT_HASH);
    const slots = [app.services.listAccess["checks"].take(), app.services.listAccess["checks"].take()];
    const busy = await list(app, right);
    expectProblemRetryAfter(busy, { status: 429, code: "list-busy", title: "Password checks busy", detail: "too many password checks under way; try again in 1 s", instance: LIST }, 1);
    expect(await app.store.getListLock()).toEqual({ failures: 0, lockedUntil: 0 });
    for (const slot of slots) slot?.release();
    expectJson(await list(app, right), 200, []);
  });

  it("lets the right password in when its own reservation was the one that locked the list, and lifts that lock", async () => {
    const app = await appWith(BCRYPT_HASH);
    await failTimes(app, 2);
    expectJson(await list(app, right), 200, []);
    expect(await app.store.getListLock()).toEqual({ failures: 0, lockedUntil: 0 });
    await failTimes(app, 3);
    expectLocked(await list(app, right), 60);
  });

  it("runs bcrypt off the event loop: the main thread stays idle while a slow hash is compared", async () => {
    const app = await appWith(bcrypt.hashSync(PASSWORD, 11));
    const before = performance.eventLoopUtilization();
    expectJson(await list(app, right), 200, []);
    const during = performance.eventLoopUtilization(before);
    expect(during.utilization).toBeLessThan(0.5);
  });
});
