import bcrypt from "bcryptjs";
import type { LightMyRequestResponse } from "fastify";
import { afterEach, expect } from "vitest";
import type { Store } from "../../src/storage/store.js";
import { BASIC_CHALLENGE, PROBLEM_TYPE, basicAuth, expectProblemRetryAfter } from "./http-expect.js";
import type { ManualClock } from "./manual-clock.js";
import { buildTestApp, type TestApp } from "./test-app.js";

/*
 * Helpers of the GET /documents suites (test/http/documents-list*.test.ts): an app whose list the
 * master password guards, the request, and its exact 401 and 429 answers.
 */

export const LIST = "/api/v1/documents";
export const PASSWORD = "correct horse battery staple";
export const BCRYPT_HASH = bcrypt.hashSync(PASSWORD, 4);

/**
 * An app per test whose list is guarded by `hash` (none: deny all), locking after 3 failures for
 * 60 s: the function returned builds it inside a test, and it is closed after that test.
 */
export function listAppPerTest(): (hash: string | undefined, store?: Store, clock?: ManualClock) => Promise<TestApp> {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  return async (hash, store, clock) => {
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
  };
}

export function list(app: TestApp, authorization?: string, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return app.app.inject({
    method: "GET",
    url: LIST,
    headers: authorization === undefined ? {} : { authorization },
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
  });
}

export const right = basicAuth("admin", PASSWORD);
/** The 401 detail of a request that makes no attempt: no credentials, another scheme, a malformed Basic header, a HEAD. */
export const NO_CREDENTIALS = "no HTTP Basic credentials: send user admin and the master password";
export const wrong = basicAuth("admin", "not the password");

/** Asserts the exact 401 answer: the Basic challenge and the problem body. */
export function expectUnauthorized(response: LightMyRequestResponse, detail = "user or password is wrong"): void {
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
export function expectLocked(response: LightMyRequestResponse, seconds: number): void {
  const detail = `too many failed attempts; try again in ${seconds} s`;
  expectProblemRetryAfter(response, { status: 429, code: "list-locked", title: "Document list locked", detail, instance: LIST }, seconds);
}

/** Fails `count` times in a row, asserting each failure is a plain 401. */
export async function failTimes(app: TestApp, count: number): Promise<void> {
  for (let attempt = 0; attempt < count; attempt++) expectUnauthorized(await list(app, wrong));
}
