import bcrypt from "bcryptjs";
import { afterEach, beforeEach, expect, it } from "vitest";
import { BASIC_CHALLENGE, PROBLEM_TYPE, basicAuth } from "../support/http-expect.js";
import { describePostgres } from "../support/postgres.js";
import { Cluster, DOCUMENTS, type Answer, type Instance } from "./instances.js";

// docs/interface.md#list-lock: the lock of the document list is global, across clients and, with PostgreSQL,
// across instances.

const PASSWORD = "correct horse";
const HASH = bcrypt.hashSync(PASSWORD, 4);
const RIGHT = basicAuth("admin", PASSWORD);
const WRONG = basicAuth("admin", "not the password");

let cluster: Cluster;

function list(instance: Instance, authorization: string): Promise<Answer> {
  return cluster.request(instance, "GET", DOCUMENTS, { headers: { authorization } });
}

/** What the lock decides: status, content type, Retry-After and body (and the Basic challenge of a 401). */
function seen(answer: Answer) {
  return {
    status: answer.status,
    contentType: answer.headers.get("content-type"),
    ...(answer.status === 401 ? { challenge: answer.headers.get("www-authenticate") } : {}),
    retryAfter: answer.headers.get("retry-after"),
    body: answer.body,
  };
}

const UNAUTHORIZED = {
  status: 401,
  contentType: PROBLEM_TYPE,
  challenge: BASIC_CHALLENGE,
  retryAfter: null,
  body: { type: "urn:folio:problem:credentials-required", title: "Credentials missing or wrong", status: 401, detail: "user or password is wrong", instance: DOCUMENTS },
};

function locked(seconds: number) {
  return {
    status: 429,
    contentType: PROBLEM_TYPE,
    retryAfter: String(seconds),
    body: {
      type: "urn:folio:problem:list-locked",
      title: "Document list locked",
      status: 429,
      detail: `too many failed attempts; try again in ${seconds} s`,
      instance: DOCUMENTS,
    },
  };
}

describePostgres("two instances on one PostgreSQL schema: the list lock", () => {
  beforeEach(async () => {
    cluster = await Cluster.start(2, (config) => {
      config.masterPassword.hash = HASH;
      config.masterPassword.maxFailures = 3;
      config.masterPassword.lockSeconds = 60;
    });
  });

  afterEach(async () => {
    await cluster?.close();
  });

  it("locks both after two failures on A and one on B: the next request on either answers 429 with Retry-After, the right password included", async () => {
    const { a, b } = cluster;
    expect(seen(await list(a, WRONG))).toEqual(UNAUTHORIZED);
    expect(seen(await list(a, WRONG))).toEqual(UNAUTHORIZED);
    expect(seen(await list(b, WRONG))).toEqual(UNAUTHORIZED);

    expect(seen(await list(a, RIGHT))).toEqual(locked(60));
    expect(seen(await list(b, RIGHT))).toEqual(locked(60));
    cluster.clock.advance(20_500);
    expect(seen(await list(b, WRONG))).toEqual(locked(40));
    expect(seen(await list(a, RIGHT))).toEqual(locked(40));
  });

  it("opens the list on both instances once the lock time has passed", async () => {
    const { a, b } = cluster;
    for (const instance of [a, b, a]) expect((await list(instance, WRONG)).status).toBe(401);
    expect(seen(await list(b, RIGHT))).toEqual(locked(60));

    cluster.clock.advance(60_000);
    const answers = await Promise.all([list(a, RIGHT), list(b, RIGHT)]);

    expect(answers.map((answer) => ({ status: answer.status, body: answer.body }))).toEqual([
      { status: 200, body: [] },
      { status: 200, body: [] },
    ]);
  });

  it("restarts the count on both instances after a success on one of them", async () => {
    const { a, b } = cluster;
    expect(seen(await list(a, WRONG))).toEqual(UNAUTHORIZED);
    expect(seen(await list(a, WRONG))).toEqual(UNAUTHORIZED);
    expect((await list(b, RIGHT)).status).toBe(200);

    expect(seen(await list(a, WRONG))).toEqual(UNAUTHORIZED);
    expect(seen(await list(b, WRONG))).toEqual(UNAUTHORIZED);
    expect((await list(a, RIGHT)).status).toBe(200);
  });

  it("loses no failure counted concurrently on both instances: six at once lock the list", async () => {
    const { a, b } = cluster;
    const answers = await Promise.all([a, b, a, b, a, b].map((instance) => list(instance, WRONG)));

    // Each attempt reserves its failure before its hash is compared: exactly three are counted and
    // compared, the third locks; the others find the lock or a full set of comparison slots (429).
    expect(answers.filter((answer) => answer.status === 401).length).toBe(3);
    expect(answers.every((answer) => answer.status === 401 || answer.status === 429)).toBe(true);
    expect(await a.store.getListLock()).toEqual({ failures: 0, lockedUntil: cluster.clock.now() + 60_000 });
    expect(seen(await list(b, RIGHT))).toEqual(locked(60));
  });
});
