import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Clock } from "../service/clock.js";
import type { ServiceObserver } from "../service/observer.js";
import type { Services } from "../service/services.js";
import type { Store } from "../storage/store.js";
import type { TrackerCallObserver } from "../tracker/taiga-transport.js";

/**
 * The service's Prometheus metrics (the names are listed in docs/monitoring.md). One {@link Registry} per
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

  // The declarations below differ only in name, help, labels and buckets, or in what a gauge reads.
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });

  const requests = histogram(
    "folio_http_request_duration_seconds",
    "HTTP requests answered, by method, route template and status (_count is the number of requests)",
    ["method", "route", "status"],
    REQUEST_BUCKETS,
  );
  const patches = counter(
    "folio_content_patches_total",
    "Content patches by outcome: applied, shifted (rebased), repeat (from the receipt), conflict, a problem code, failed",
    ["outcome"],
  );
  const batchSizes = histogram("folio_commit_batch_size", "Write commands one durable commit of a document carried, by store", ["store"], BATCH_BUCKETS);
  const commitDurations = histogram(
    "folio_commit_duration_seconds",
    "Time of a document batch's store write, deciding and committing, by store",
    ["store"],
    COMMIT_BUCKETS,
  );
  const feedAnswers = counter("folio_feed_answers_total", "Change feed answers by kind: ops (a diff), content (the full text), none (204)", ["kind"]);
  const feedWakeups = counter("folio_feed_wakeups_total", "Waiting feed requests woken by a commit");
  gauge("folio_feed_waiters", "Feed requests waiting now", () => services.hub.stats().waiters);
  const cache = () => services.writer.cache.stats();
  gauge("folio_head_cache_entries", "Documents whose head the cache holds", () => cache().entries);
  gauge("folio_head_cache_characters", "The cache's weight: its texts' characters plus an estimate for their recent versions", () => cache().characters);
  pulledCounter(registry, "folio_head_cache_hits_total", "Head cache lookups that found the current head", () => cache().hits);
  pulledCounter(registry, "folio_head_cache_misses_total", "Head cache lookups that rebuilt the head from the store", () => cache().misses);
  gauge("folio_head_cache_hit_ratio", "Hits over lookups of the head cache since start (0 before any lookup)", () => {
    const { hits, misses } = cache();
    return hits + misses === 0 ? 0 : hits / (hits + misses);
  });
  const compactionRuns = counter("folio_compaction_runs_total", "Compaction runs: ran, or skipped (another instance was compacting)", ["result"]);
  const compactedVersions = counter("folio_compaction_versions_total", "Versions whose ops compaction dropped");
  const trackerCalls = histogram(
    "folio_tracker_call_duration_seconds",
    "Calls to the tracker by operation and upstream status (timeout, unreachable when none)",
    ["operation", "status"],
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );
  const listFailures = counter("folio_list_failed_attempts_total", "Failed attempts at the document list");
  const listLocks = counter("folio_list_locks_total", "Times the document list locked after too many failures");
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
    gauge("folio_postgres_listener_connected", "1 while the LISTEN connection for other instances' commits is up", () => (store.stats().listener?.connected ? 1 : 0));
    pulledCounter(registry, "folio_postgres_listener_reconnects_total", "Times the LISTEN connection was re-established", () => store.stats().listener?.reconnects ?? 0);
  }

  const requestSeries = new Map<string, { observe(seconds: number): void }>();
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
      // The labelled child is looked up once per combination, not hashed from its labels on every
      // request; the combinations are bounded (methods, route templates, statuses) like the series.
      const key = `${method} ${status} ${route}`;
      let child = requestSeries.get(key);
      if (!child) {
        child = requests.labels({ method: METHODS.has(method) ? method : "other", route, status: String(status) });
        requestSeries.set(key, child);
      }
      child.observe(seconds);
    },
    async render() {
      const own = await registry.metrics();
      const process = await processMetrics().metrics();
      return { contentType: registry.contentType, body: `${own}\n${process}` };
    },
  };
}
