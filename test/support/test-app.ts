import type { FastifyInstance, FastifyServerOptions } from "fastify";
import { defaultConfig, type Config } from "../../src/config.js";
import { buildApp } from "../../src/http/app.js";
import type { Store } from "../../src/storage/store.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { createServices, type Services } from "../../src/service/services.js";
import { ManualClock } from "./manual-clock.js";

export interface TestAppOptions {
  /** Changes a fresh copy of the default configuration. */
  config?: (config: Config) => void;
  logger?: FastifyServerOptions["loggerInstance"];
  clock?: ManualClock;
  /** A store to use instead of a fresh in-memory SQLite one (it is closed with the app). */
  store?: Store;
  identity?: { name: string; version: string; builtAt?: string };
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

/** A mutable deep copy of the defaults (loadConfig returns a frozen object). */
export function testConfig(change?: (config: Config) => void): Config {
  const config = structuredClone(defaultConfig());
  change?.(config);
  return config;
}

/** Builds the real app on an in-memory SQLite store with a manual clock. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = testConfig(options.config);
  const store = options.store ?? SqliteStore.open(":memory:");
  const clock = options.clock ?? new ManualClock();
  const services = createServices({ config, store, clock });
  const app = await buildApp({
    config,
    store,
    clock,
    services,
    identity: options.identity ?? { name: "folio", version: "0.1.0" },
    logger: options.logger ?? false,
  });
  await app.ready();
  return {
    app,
    store,
    clock,
    config,
    services,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
