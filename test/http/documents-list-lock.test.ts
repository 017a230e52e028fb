import { describe, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { Store } from "../../src/storage/store.js";
import { ManualClock } from "../support/manual-clock.js";
import { expectJson } from "../support/http-expect.js";
import { BCRYPT_HASH, expectLocked, expectUnauthorized, failTimes, list, listAppPerTest, right, wrong } from "../support/document-list.js";

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
