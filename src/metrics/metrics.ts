import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Clock } from "../service/clock.js";
import type { ServiceObserver } from "../service/observer.js";
import type { Services } from "../service/services.js";
import type { Store } from "../storage/store.js";
import type { TrackerCallObserver } from "../tracker/taiga-transport.js";

/**
 * The service's Prometheus metrics (the names are listed in the README). One {@link Registry} per
 * built app, never prom-client's global one: tests build many apps in one process. Every label
 * value comes from a bounded set: route templates (never ids), methods, statuses, outcome names.
 */
export interface AppMetrics {
  /** Reports to the service's events (see src/service/observer.ts). */
  readonly service: ServiceObserver;
  /** Reports the tracker client's upstream calls. */
  readonly tracker: TrackerCallObserver;
  /** One answered request: `route` is the route template, or {@link UNMATCHED_ROUTE}. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** The text exposition of this app's metrics and the process's. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** The route label of a request no route matched (its path is the client's, unbounded). */
export const UNMATCHED_ROUTE = "unmatched";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** Up to the feed's longest wait (service.feed.max-wait-seconds is at most 3,600; 60 by default). */
const REQUEST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** How long a scrape waits for the store's list lock before leaving the gauge as it was. */
const LIST_LOCK_READ_MS = 1000;

// Process metrics (CPU, memory, event loop, GC) are the process's, not an app's: one registry for
// them per process, made on first use, rendered after each app's own. Made per app, every test app
// would leave a GC observer and an event-loop monitor behind.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A counter whose value is read from a running total at scrape time. */
function pulledCounter(registry: Registry, name: string, help: string, total: () => number): void {
  let reported = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = total();
      if (now > reported) this.inc(now - reported);
      reported = Math.max(reported, now);
    },
  });
}

export function createMetrics(sources: { services: Services; store: Store; clock: Clock }): AppMetrics {
  const { services, store, clock } = sources;
  const registry = new Registry();
  const registers = [registry];
  const storeKind = store.stats().kind;

  const requests = new Histogram({
    name: "folio_http_request_duration_seconds",
    help: "HTTP requests answered, by method, route template and status (_count is the number of requests)",
    labelNames: ["method", "route", "status"] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const patches = new Counter({
    name: "folio_content_patches_total",
    help: "Content patches by outcome: applied, shifted (rebased), repeat (from the receipt), conflict, a problem code, failed",
    labelNames: ["outcome"] as const,
    registers,
  });
  const batchSizes = new Histogram({
    name: "folio_commit_batch_size",
    help: "Write commands one durable commit of a document carried, by store",
    labelNames: ["store"] as const,
    buckets: BATCH_BUCKETS,
    registers,
  });
  const commitDurations = new Histogram({
    name: "folio_commit_duration_seconds",
    help: "Time of a document batch's store write, deciding and committing, by store",
    labelNames: ["store"] as const,
    buckets: COMMIT_BUCKETS,
    registers,
  });
  const feedAnswers = new Counter({
    name: "folio_feed_answers_total",
    help: "Change feed answers by kind: ops (a diff), content (the full text), none (204)",
    labelNames: ["kind"] as const,
    registers,
  });
  const feedWakeups = new Counter({ name: "folio_feed_wakeups_total", help: "Waiting feed requests woken by a commit", registers });
  new Gauge({
    name: "folio_feed_waiters",
    help: "Feed requests waiting now",
    registers,
    collect() {
      this.set(services.hub.stats().waiters);
    },
  });
  const cache = () => services.documents.writer.cache.stats();
  new Gauge({ name: "folio_head_cache_entries", help: "Documents whose head the cache holds", registers, collect() { this.set(cache().entries); } });
  new Gauge({
    name: "folio_head_cache_characters",
    help: "The cache's weight: its texts' characters plus an estimate for their recent versions",
    registers,
    collect() {
      this.set(cache().characters);
    },
  });
  pulledCounter(registry, "folio_head_cache_hits_total", "Head cache lookups that found the current head", () => cache().hits);
  pulledCounter(registry, "folio_head_cache_misses_total", "Head cache lookups that rebuilt the head from the store", () => cache().misses);
  new Gauge({
    name: "folio_head_cache_hit_ratio",
    help: "Hits over lookups of the head cache since start (0 before any lookup)",
    registers,
    collect() {
      const { hits, misses } = cache();
      this.set(hits + misses === 0 ? 0 : hits / (hits + misses));
    },
  });
  const compactionRuns = new Counter({
    name: "folio_compaction_runs_total",
    help: "Compaction runs: ran, or skipped (another instance was compacting)",
    labelNames: ["result"] as const,
    registers,
  });
  const compactedVersions = new Counter({ name: "folio_compaction_versions_total", help: "Versions whose ops compaction dropped", registers });
  const trackerCalls = new Histogram({
    name: "folio_tracker_call_duration_seconds",
    help: "Calls to the tracker by operation and upstream status (timeout, unreachable when none)",
    labelNames: ["operation", "status"] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const listFailures = new Counter({ name: "folio_list_failed_attempts_total", help: "Failed attempts at the document list", registers });
  const listLocks = new Counter({ name: "folio_list_locks_total", help: "Times the document list locked after too many failures", registers });
  new Gauge({
    name: "folio_list_locked",
    help: "1 while the document list is locked (the lock is shared by every instance)",
    registers,
    async collect() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), LIST_LOCK_READ_MS)));
      const lock = await Promise.race([store.getListLock().catch(() => undefined), late]);
      clearTimeout(timer);
      if (lock) this.set(lock.lockedUntil > clock.now() ? 1 : 0);
    },
  });
  if (storeKind === "postgres") {
    new Gauge({
      name: "folio_postgres_listener_connected",
      help: "1 while the LISTEN connection for other instances' commits is up",
      registers,
      collect() {
        this.set(store.stats().listener?.connected ? 1 : 0);
      },
    });
    pulledCounter(registry, "folio_postgres_listener_reconnects_total", "Times the LISTEN connection was re-established", () => store.stats().listener?.reconnects ?? 0);
  }

  return {
    service: {
      patch: (outcome) => patches.inc({ outcome }),
      commit: (size, seconds) => {
        batchSizes.observe({ store: storeKind }, size);
        commitDurations.observe({ store: storeKind }, seconds);
      },
      feedAnswer: (kind) => feedAnswers.inc({ kind }),
      feedWakeup: () => feedWakeups.inc(),
      compaction: ({ ran, versions }) => {
        compactionRuns.inc({ result: ran ? "ran" : "skipped" });
        if (versions > 0) compactedVersions.inc(versions);
      },
      listFailure: (lockedUntil) => {
        listFailures.inc();
        if (lockedUntil !== undefined) listLocks.inc();
      },
    },
    tracker: (operation, status, seconds) => trackerCalls.observe({ operation, status }, seconds),
    request: (method, route, status, seconds) => {
      requests.observe({ method: METHODS.has(method) ? method : "other", route, status: String(status) }, seconds);
    },
    async render() {
      const own = await registry.metrics();
      const process = await processMetrics().metrics();
      return { contentType: registry.contentType, body: `${own}\n${process}` };
    },
  };
}
