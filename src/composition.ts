import type { Config } from "./config/config.js";
import { createMetrics, type AppMetrics } from "./metrics/metrics.js";
import type { Clock } from "./service/clock.js";
import { createServices, type Services } from "./service/services.js";
import type { Store } from "./storage/store.js";
import { TaigaClient } from "./tracker/taiga-client.js";

/** Where the wiring reports what an operator must see (a pino logger, or nothing in tests). */
export interface OperatorLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Everything the HTTP layer serves, built once: the use cases, the metrics, the tracker client. */
export interface Composition {
  readonly config: Config;
  readonly store: Store;
  /** The service's time, for what the HTTP layer times itself (an event stream's keep-alive and drain). */
  readonly clock: Clock;
  readonly services: Services;
  /** Absent when `service.metrics.enabled` is false. */
  readonly metrics: AppMetrics | undefined;
  /** Absent without `service.tracker.api-url`: every tracker route answers 503. */
  readonly tracker: TaigaClient | undefined;
  /** Starts the background work (compaction now and every interval). */
  start(): void;
  /** First step of shutdown: waiting feed requests are answered at once. */
  quiesce(): void;
  /** Stops the background work, waits for queued writes, closes the tracker client. */
  close(): Promise<void>;
}

const silent: OperatorLog = { warn: () => undefined, error: () => undefined };

/**
 * The composition root: the one place that wires the service. It builds the use cases (their own
 * parts are wired in src/service/services.ts), lets the metrics and the operator's log listen to
 * them, and makes the tracker client. server.ts and the tests build the app from what it returns;
 * src/http/app.ts only builds routes on it.
 */
export function compose(deps: { config: Config; store: Store; clock: Clock; log?: OperatorLog }): Composition {
  const { config, store, clock } = deps;
  const log = deps.log ?? silent;
  const services = createServices({ config, store, clock, onError: (error) => log.error({ err: error }, "compaction failed") });
  const metrics = config.metrics.enabled ? createMetrics({ services, store, clock }) : undefined;
  if (metrics) services.events.add(metrics.service);
  services.events.add({
    listFailure: (lockedUntil) => {
      if (lockedUntil !== undefined) log.warn({ lockedUntil: new Date(lockedUntil).toISOString() }, "the document list is locked after too many failed attempts");
    },
  });
  const tracker = config.tracker.apiUrl
    ? new TaigaClient({
        apiUrl: config.tracker.apiUrl,
        loginType: config.tracker.loginType,
        timeoutMs: config.tracker.timeoutMs,
        ...(metrics ? { observe: metrics.tracker } : {}),
      })
    : undefined;
  return {
    config,
    store,
    clock,
    services,
    metrics,
    tracker,
    start: () => services.start(),
    quiesce: () => services.quiesce(),
    close: async () => {
      try {
        await services.close();
      } finally {
        await tracker?.close();
      }
    },
  };
}
