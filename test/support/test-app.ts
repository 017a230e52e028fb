import type { FastifyInstance, FastifyServerOptions } from "fastify";
import { defaultConfig, type Config } from "../../src/config/config.js";
import { compose } from "../../src/composition.js";
import { buildApp } from "../../src/http/app.js";
import type { Store } from "../../src/storage/store.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { Services } from "../../src/service/services.js";
import { ManualClock } from "./manual-clock.js";

export interface TestAppOptions {
  /** Changes a fresh copy of the default configuration. */
  config?: (config: Config) => void;
  logger?: FastifyServerOptions["loggerInstance"];
  clock?: ManualClock;
  /**
   * A store to use instead of a fresh one (it is closed with the app). The fresh one is an
   * in-memory SQLite store, or, with `FOLIO_TEST_STORE=postgres`, a PostgreSQL store on an empty
   * schema no other app uses (see test/support/reused-schemas.ts).
   */
  store?: Store;
  identity?: { name: string; version: string; builtAt?: string };
  /** The built editor page to serve (default: this checkout's dist/web, which may be missing). */
  webRoot?: string;
}

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  clock: ManualClock;
  config: Config;
  /** The app's use cases: the feed's hub, the compactor, the document writer. */
  services: Services;
  close(): Promise<void>;
}

/** Every rate limit off: a test turns on the ones it is about. */
export const LIMITS_OFF: Config["rateLimit"] = { createsPerMinute: 0, writesPerSecond: 0, readsPerSecond: 0, waitsPerAddress: 0, trackerLoginsPerMinute: 0, trackerReadsPerSecond: 0 };

/**
 * A mutable deep copy of the defaults (loadConfig returns a frozen object), with the rate limits
 * off: a suite sends from one address at a script's pace, which is what the limits are for.
 * test/http/rate-limits.test.ts turns them on.
 */
export function testConfig(change?: (config: Config) => void): Config {
  const config = structuredClone(defaultConfig());
  config.rateLimit = { ...LIMITS_OFF };
  change?.(config);
  return config;
}

/** The store fresh test apps get: `postgres` when `FOLIO_TEST_STORE=postgres` (the vitest project "postgres"), else `sqlite`. */
export const TEST_STORE_KIND: "sqlite" | "postgres" = process.env.FOLIO_TEST_STORE === "postgres" ? "postgres" : "sqlite";

/** A fresh store of {@link TEST_STORE_KIND} and how to get rid of it. */
async function openFreshStore(): Promise<{ store: Store; dispose: () => Promise<void> }> {
  if (TEST_STORE_KIND === "postgres") {
    // Imported only here: the PostgreSQL support probes the server when it loads, which SQLite runs must not wait for.
    const { openEmptyPostgresStore } = await import("./reused-schemas.js");
    return openEmptyPostgresStore();
  }
  const store = SqliteStore.open(":memory:");
  return { store, dispose: () => store.close() };
}

/** How to get rid of the stores {@link freshTestStore} made (close, and give up a PostgreSQL schema). */
const disposers = new WeakMap<Store, () => Promise<void>>();

/**
 * A fresh store of {@link TEST_STORE_KIND}, for a test that wraps or inspects the store before it
 * passes it to {@link buildTestApp}; closing that app disposes of it like of the app's own store.
 */
export async function freshTestStore(): Promise<Store> {
  const { store, dispose } = await openFreshStore();
  disposers.set(store, dispose);
  return store;
}

/** Builds the real app on a fresh store (see {@link TEST_STORE_KIND}) with a manual clock. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.config);
  const given = options.store;
  const { store, dispose } = given ? { store: given, dispose: disposers.get(given) ?? (() => given.close()) } : await openFreshStore();
  const clock = options.clock ?? new ManualClock();
  try {
    const log = typeof options.logger === "object" ? options.logger : undefined;
    const composition = compose({ config, store, clock, ...(log ? { log } : {}) });
    const { services } = composition;
    const app = await buildApp({
      composition,
      identity: options.identity ?? { name: "folio", version: "0.1.0" },
      logger: options.logger ?? false,
      ...(options.webRoot !== undefined ? { webRoot: options.webRoot } : {}),
    });
    await app.ready();
    return {
      app,
      store,
      clock,
      config,
      services,
      async close() {
        try {
          await app.close();
        } finally {
          await dispose();
        }
      },
    };
  } catch (error) {
    // Only a store opened here is disposed; a given one stays with the caller, as before.
    if (!given) await dispose();
    throw error;
  }
}
