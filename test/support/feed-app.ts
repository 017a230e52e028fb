import { afterEach } from "vitest";
import { buildTestApp, type TestApp, type TestAppOptions } from "./test-app.js";
import { FeedClient } from "./feed-client.js";

/**
 * For the feed's suites: `started(options)` builds the test's app (closed after the test) with a
 * {@link FeedClient} on it; `current()` is that app while the test runs.
 */
export function feedAppPerTest(): {
  started: (options?: TestAppOptions) => Promise<{ app: TestApp; client: FeedClient }>;
  current: () => TestApp;
} {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  return {
    started: async (options) => {
      t = await buildTestApp(options);
      return { app: t, client: new FeedClient(t.app) };
    },
    current: () => {
      if (!t) throw new Error("feedAppPerTest: no app was started in this test");
      return t;
    },
  };
}

/** Ann's first patch on a document made with the content "a": a line "b" after it. */
export const patchAB = { baseVersion: 1, base: "a", seq: 1, clientId: "c-ann", ops: [{ op: "insert" as const, index: 1, lines: ["b"] }] };

/** The feed's answer from version 1 once {@link patchAB} is version 2. */
export const answerAB = {
  fromVersion: 1,
  currentVersion: 2,
  ops: [{ op: "insert", index: 1, lines: ["b"] }],
  events: [{ version: 2, changeType: "UPDATED", clientId: "c-ann" }],
};
