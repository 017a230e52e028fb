import type { FastifyInstance } from "fastify";
import { Agent, fetch } from "undici";
import type { Config } from "../../src/config/config.js";
import { compose } from "../../src/composition.js";
import { buildApp } from "../../src/http/app.js";
import type { Services } from "../../src/service/services.js";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { ManualClock } from "../support/manual-clock.js";
import { POSTGRES_TEST_URL, dropSchema, uniqueSchemaName, withAdminClient } from "../support/postgres.js";
import { testConfig } from "../support/test-app.js";

export { DOCUMENTS } from "../support/http-expect.js";

/** One service instance: its own store (pool and LISTEN connection), services and HTTP listener. */
export interface Instance {
  name: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  app: FastifyInstance;
  store: PostgresStore;
  services: Services;
  /** Connection trouble the store reported and recovered from (a killed LISTEN connection shows here). */
  storeErrors: Error[];
}

/** What a test reads of an HTTP answer. */
export interface Answer {
  status: number;
  headers: { get(name: string): string | null };
  /** The parsed JSON body, or the raw text when it is not JSON (an empty 204 body is ""). */
  body: unknown;
}

/**
 * Service instances sharing one fresh PostgreSQL schema, as several processes behind a load
 * balancer would: nothing is shared between them but the database. They share one manual clock so
 * that times in answers are exact; traffic goes over real HTTP on loopback. Its timers run on the wall
 * clock: a long poll must run out and a feed's wake-up window must end on its own, as they do in
 * production (with timers that fire only when a test moves the clock, a window opened by five waiters
 * never ended, and the notices it swallowed left clients behind for good).
 */
export class Cluster {
  readonly instances: Instance[] = [];
  readonly clock = new ManualClock(undefined, { realTimers: true });
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

  private constructor(
    readonly schema: string,
    private readonly config: Config,
  ) {}

  /** A cluster of `count` instances on a fresh schema, all started at once (so they migrate concurrently). */
  static async start(count: number, change?: (config: Config) => void): Promise<Cluster> {
    const cluster = new Cluster(uniqueSchemaName(), testConfig(change));
    try {
      await Promise.all(Array.from({ length: count }, (_, index) => cluster.startInstance(String.fromCharCode(65 + index))));
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  get a(): Instance {
    return this.instances[0]!;
  }

  get b(): Instance {
    return this.instances[1]!;
  }

  /** Sends one request; a JSON body is serialized and parsed back. */
  async request(instance: Instance, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
    const response = await fetch(`${instance.origin}${path}`, {
      method,
      dispatcher: this.agent,
      headers: { ...(options.body === undefined ? {} : { "content-type": "application/json" }), ...options.headers },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    let body: unknown = text;
    if ((response.headers.get("content-type") ?? "").includes("json")) body = JSON.parse(text) as unknown;
    return { status: response.status, headers: response.headers, body };
  }

  /** Closes every instance (answering its waiting requests), then drops the schema. */
  async close(): Promise<void> {
    await Promise.allSettled(this.instances.map((instance) => instance.app.close()));
    await Promise.allSettled(this.instances.map((instance) => instance.store.close()));
    await this.agent.close().catch(() => {});
    await dropSchema(this.schema);
  }

  private async startInstance(name: string): Promise<void> {
    const storeErrors: Error[] = [];
    const store = await PostgresStore.open(POSTGRES_TEST_URL, { schema: this.schema, poolSize: 8, onError: (error) => storeErrors.push(error) });
    const composition = compose({ config: this.config, store, clock: this.clock });
    const { services } = composition;
    const app = await buildApp({ composition, identity: { name: "folio", version: "0.1.0" }, logger: false });
    const instance: Instance = { name, origin: "", app, store, services, storeErrors };
    this.instances.push(instance);
    instance.origin = await app.listen({ host: "127.0.0.1", port: 0 });
  }
}

/** Terminates one backend of the test server, as a network failure or a DBA would. */
export async function terminateBackend(pid: number): Promise<void> {
  const { rows } = await withAdminClient((client) => client.query<{ terminated: boolean }>("SELECT pg_terminate_backend($1) AS terminated", [pid]));
  if (rows[0]?.terminated !== true) throw new Error(`backend ${pid} was not terminated`);
}

export { until } from "../support/wait-until.js";
