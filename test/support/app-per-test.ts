import { afterEach, beforeEach } from "vitest";
import type { OpenOptions } from "../../src/client/index.js";
import { openLive, serveTestApp, type ServedApp } from "./client-harness.js";
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

/**
 * A fresh {@link serveTestApp} (the app listening on 127.0.0.1, with a client) for each test of
 * the calling file or `describe`, closed after it (after `beforeClose`); `s.baseUrl`, `s.client`,
 * `s.t` inside a test.
 */
export function servedAppPerTest(options?: TestAppOptions, beforeClose?: () => void): ServedApp {
  let current: ServedApp | undefined;
  beforeEach(async () => {
    current = await serveTestApp(options);
  });
  afterEach(async () => {
    beforeClose?.();
    const closing = current;
    current = undefined;
    await closing?.close();
  });
  const now = (): ServedApp => {
    if (current === undefined) throw new Error("servedAppPerTest: the app exists only while a test runs");
    return current;
  };
  return {
    get t() {
      return now().t;
    },
    get baseUrl() {
      return now().baseUrl;
    },
    get client() {
      return now().client;
    },
    close: () => now().close(),
  };
}

/**
 * {@link servedAppPerTest}, `document(content)`, which creates a document titled "T" through the
 * test's client and gives its id, and `live(id, options)`, which opens a live document on it through
 * its own recording fetch ({@link openLive}); every document a test opened is closed after it, before the app.
 */
export function liveDocumentsPerTest(options?: TestAppOptions): {
  s: ServedApp;
  document: (content: string) => Promise<string>;
  live: (id: string, options?: OpenOptions) => ReturnType<typeof openLive>;
} {
  const closers: Array<() => void> = [];
  const s = servedAppPerTest(options, () => closers.splice(0).forEach((close) => close()));
  const document = async (content: string) => (await s.client.createDocument({ title: "T", content })).id;
  const live = async (id: string, openOptions: OpenOptions = {}) => {
    const opened = await openLive(s.baseUrl, id, openOptions);
    closers.push(() => opened.doc.close());
    return opened;
  };
  return { s, document, live };
}
