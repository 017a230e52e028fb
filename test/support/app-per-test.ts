import { afterEach, beforeEach } from "vitest";
import { buildTestApp, type TestApp, type TestAppOptions } from "./test-app.js";

/**
 * A fresh {@link buildTestApp} for each test of the calling file or `describe`: built before each
 * test, closed after it. The object returned stands for the current test's app, so a suite reads
 * `t.app`, `t.store`, `t.clock` inside its tests (outside one, there is no app and it throws).
 */
export function appPerTest(options?: TestAppOptions): TestApp {
  let current: TestApp | undefined;
  beforeEach(async () => {
    current = await buildTestApp(options);
  });
  afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.close();
  });
  const now = (): TestApp => {
    if (current === undefined) throw new Error("appPerTest: the app exists only while a test runs");
    return current;
  };
  return {
    get app() {
      return now().app;
    },
    get store() {
      return now().store;
    },
    get clock() {
      return now().clock;
    },
    get config() {
      return now().config;
    },
    get services() {
      return now().services;
    },
    close: () => now().close(),
  };
}
