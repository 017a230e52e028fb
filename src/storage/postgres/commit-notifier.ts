import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { UUID_SOURCE } from "../../core/uuid.js";
import type { CommitListener, CommitNotice } from "../store.js";

/**
 * The channel every Folio store on a database notifies; payload `<documentId>:<version>:<origin>`,
 * where the origin names the notifying store (an older payload without it is accepted too).
 */
export const COMMIT_CHANNEL = "folio_commits";

/**
 * The channel of the instance relay (presence): payload `<scope>.<origin>:<message>`, where the
 * scope is the store's schema, since a channel spans the whole database (test suites run one schema each).
 */
export const RELAY_CHANNEL = "folio_relay";

// The id in lower case only, as the stores send it.
const PAYLOAD = new RegExp(`^(${UUID_SOURCE}):(\\d{1,16})(?::([0-9a-f]{16}))?$`);
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

/** How the LISTEN connection is checked while idle. */
export interface HeartbeatOptions {
  /** Time between checks; default 15 s. */
  intervalMs?: number;
  /** How long a check may take before the connection counts as lost; default 5 s. */
  timeoutMs?: number;
}

export function commitPayload(documentId: string, version: number, origin: string): string {
  return `${documentId}:${version}:${origin}`;
}

/** A commit notice and the origin of the store that sent it (`undefined` for a payload without one). */
export function parseCommitPayload(payload: string | undefined): { notice: CommitNotice; origin: string | undefined } | undefined {
  const match = PAYLOAD.exec(payload ?? "");
  if (!match) return undefined;
  const version = Number(match[2]);
  return Number.isSafeInteger(version) ? { notice: { documentId: match[1]!, version }, origin: match[3] } : undefined;
}

/**
 * One dedicated connection that LISTENs for commits and fans them out to the subscribed listeners.
 * A lost connection is re-established with a doubling backoff until {@link close}; after each
 * reconnect every listener is reset, since notices sent while nobody listened are gone.
 *
 * A connection that dies without a word (a half-open TCP connection after a network failure or a
 * failover) raises no event for hours, while notices go nowhere; so the idle connection runs a
 * query every interval, and one that does not answer in time counts as lost.
 *
 * Notices that carry this notifier's own {@link origin} are dropped: the service already woke its
 * waiters for the commits it made itself, and a second wake-up per commit would make every waiter
 * that re-polled in between read the store again for nothing.
 */
export class CommitNotifier {
  /** Put into the payload of this store's own commits (see {@link commitPayload}). */
  readonly origin = randomBytes(8).toString("hex");
  private readonly listeners = new Set<CommitListener>();
  private readonly relayListeners = new Set<(message: string) => void>();
  private readonly stopping = new AbortController();
  private readonly heartbeatIntervalMs: number;
  private readonly heartbeatTimeoutMs: number;
  private client: pg.Client | undefined;
  private reconnecting: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnected = 0;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly onError: (error: Error) => void = () => {},
    heartbeat: HeartbeatOptions = {},
    /** The relay's scope: the schema of the store (see {@link RELAY_CHANNEL}). */
    private readonly scope = "",
  ) {
    this.heartbeatIntervalMs = heartbeat.intervalMs ?? 15_000;
    this.heartbeatTimeoutMs = heartbeat.timeoutMs ?? 5_000;
  }

  /** Connects and listens; rejects when the first connection fails. */
  async start(): Promise<void> {
    this.listenOn(await this.connect());
  }

  subscribe(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Hears the relay's messages of the other stores (this one's own are dropped). */
  watchRelay(listener: (message: string) => void): () => void {
    this.relayListeners.add(listener);
    return () => {
      this.relayListeners.delete(listener);
    };
  }

  /** The backend pid of the listening connection, while connected. */
  pid(): number | undefined {
    return (this.client as { processID?: number | null } | undefined)?.processID ?? undefined;
  }

  /** Whether the LISTEN connection is up now. */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /** How often the LISTEN connection was re-established after a loss. */
  get reconnects(): number {
    return this.reconnected;
  }

  async close(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    await this.reconnecting;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    // Handlers first: an 'error' event without a listener would crash the process.
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("the LISTEN connection ended")));
    client.on("notification", (message) => {
      if (message.channel === RELAY_CHANNEL) return this.relayed(message.payload);
      if (message.channel !== COMMIT_CHANNEL) return;
      const parsed = parseCommitPayload(message.payload);
      if (parsed && parsed.origin !== this.origin) this.forEach((listener) => listener.commit(parsed.notice));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${COMMIT_CHANNEL}`);
      await client.query(`LISTEN ${RELAY_CHANNEL}`);
      return client;
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
  }

  /** Makes `client` the listening connection and checks it every heartbeat interval. */
  private listenOn(client: pg.Client): void {
    this.client = client;
    clearInterval(this.heartbeat);
    let checking = false;
    this.heartbeat = setInterval(() => {
      if (checking || client !== this.client) return;
      checking = true;
      const timer = setTimeout(
        () => this.lost(client, new Error(`the LISTEN connection did not answer a check within ${this.heartbeatTimeoutMs} ms`)),
        this.heartbeatTimeoutMs,
      );
      client
        .query("SELECT 1")
        .catch((error: unknown) => this.lost(client, error instanceof Error ? error : new Error(String(error))))
        .finally(() => {
          clearTimeout(timer);
          checking = false;
        });
    }, this.heartbeatIntervalMs);
    this.heartbeat.unref();
  }

  private lost(client: pg.Client, error: Error): void {
    if (client !== this.client || this.stopping.signal.aborted) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    this.onError(error);
    // With a check still waiting for its answer, end() destroys the socket instead of saying goodbye.
    void client.end().catch(() => {});
    this.reconnecting = this.reconnect().finally(() => {
      this.reconnecting = undefined;
    });
  }

  private async reconnect(): Promise<void> {
    let delay = FIRST_RETRY_MS;
    while (!this.stopping.signal.aborted) {
      try {
        await sleep(delay, undefined, { signal: this.stopping.signal });
      } catch {
        return;
      }
      try {
        const client = await this.connect();
        if (this.stopping.signal.aborted) {
          await client.end().catch(() => {});
          return;
        }
        this.listenOn(client);
        this.reconnected++;
        this.forEach((listener) => listener.reset());
        return;
      } catch (error) {
        this.onError(error instanceof Error ? error : new Error(String(error)));
        delay = Math.min(delay * 2, LAST_RETRY_MS);
      }
    }
  }

  /** The payload of a relay message from this store. */
  relayPayload(message: string): string {
    return `${this.scope}.${this.origin}:${message}`;
  }

  private relayed(payload: string | undefined): void {
    const colon = payload?.indexOf(":") ?? -1;
    if (payload === undefined || colon < 0) return;
    const sender = payload.slice(0, colon);
    if (sender === `${this.scope}.${this.origin}` || !sender.startsWith(`${this.scope}.`)) return;
    const message = payload.slice(colon + 1);
    for (const listener of [...this.relayListeners]) {
      try {
        listener(message);
      } catch (error) {
        this.onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  private forEach(call: (listener: CommitListener) => void): void {
    for (const listener of [...this.listeners]) {
      try {
        call(listener);
      } catch (error) {
        // One faulty listener must not starve the others of their wake-ups.
        this.onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}
