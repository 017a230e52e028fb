import { until } from "../support/wait-until.js";
import { randomUUID } from "node:crypto";
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { COMMIT_CHANNEL, CommitNotifier, commitPayload, parseCommitPayload } from "../../src/storage/postgres/commit-notifier.js";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { RecordingListener } from "../support/recording-listener.js";
import { writeVersionOne } from "../support/store-records.js";
import { POSTGRES_TEST_URL, describePostgres, openTestStore, withAdminClient } from "../support/postgres.js";

/**
 * A TCP proxy in front of the test server that can freeze the connections it carries: bytes stop
 * flowing both ways, nothing is closed. That is what a network failure looks like to both ends
 * until TCP gives up, hours later.
 */
class FreezableProxy {
  private readonly pairs: { client: Socket; upstream: Socket; frozen: boolean }[] = [];
  /** Writes from the client side of each connection, oldest connection first. */
  readonly writes: number[] = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(host: string, port: number): Promise<FreezableProxy> {
    const carriers: ((client: Socket) => void)[] = [];
    const server = createServer((client) => carriers[0]?.(client));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const proxy = new FreezableProxy(server, address.port);
    carriers.push((client) => proxy.carry(client, connect({ host, port })));
    return proxy;
  }

  /** Stops every connection open now from carrying data; new connections work. */
  freezeAll(): void {
    for (const pair of this.pairs) pair.frozen = true;
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private carry(client: Socket, upstream: Socket): void {
    const pair = { client, upstream, frozen: false };
    const index = this.writes.push(0) - 1;
    this.pairs.push(pair);
    client.on("data", (chunk) => {
      if (pair.frozen) return;
      this.writes[index]!++;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (!pair.frozen) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  }
}

describe("the commit payload", () => {
  const id = "0b7e3c1a-9d2f-4e6b-8a5c-1f2e3d4c5b6a";

  it("round-trips a notice with the origin of the store that sent it", () => {
    expect(commitPayload(id, 42, "00ff00ff00ff00ff")).toBe(`${id}:42:00ff00ff00ff00ff`);
    expect(parseCommitPayload(`${id}:42:00ff00ff00ff00ff`)).toEqual({ notice: { documentId: id, version: 42 }, origin: "00ff00ff00ff00ff" });
  });

  it("accepts a payload without an origin, as stores before it sent", () => {
    expect(parseCommitPayload(`${id}:7`)).toEqual({ notice: { documentId: id, version: 7 }, origin: undefined });
  });

  it.each([`${id.toUpperCase()}:1`, `${id}:x`, `${id}:1:short`, `${id}:${"9".repeat(17)}`, "", undefined])("ignores the malformed payload %s", (payload) => {
    expect(parseCommitPayload(payload)).toBeUndefined();
  });
});

describePostgres("CommitNotifier", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function throughProxy(heartbeat: { intervalMs: number; timeoutMs: number }) {
    const target = new URL(POSTGRES_TEST_URL);
    const proxy = await FreezableProxy.start(target.hostname, Number(target.port || 5432));
    cleanups.push(() => proxy.close());
    const proxied = new URL(POSTGRES_TEST_URL);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    const errors: Error[] = [];
    const notifier = new CommitNotifier({ connectionString: proxied.toString(), connectionTimeoutMillis: 5_000 }, (error) => errors.push(error), heartbeat);
    await notifier.start();
    cleanups.push(() => notifier.close());
    const listener = new RecordingListener();
    notifier.subscribe(listener);
    return { proxy, notifier, listener, errors };
  }

  it("replaces a LISTEN connection that stops answering without closing, resets its listeners and delivers later notices", async () => {
    const { proxy, notifier, listener, errors } = await throughProxy({ intervalMs: 50, timeoutMs: 200 });
    const frozenPid = notifier.pid();
    expect({ connected: notifier.connected, reconnects: notifier.reconnects }).toEqual({ connected: true, reconnects: 0 });

    proxy.freezeAll();
    await until("the reset after the failed check", () => listener.resets === 1);

    // What the readiness probe and the metrics read: up again, after one reconnect.
    expect({ connected: notifier.connected, reconnects: notifier.reconnects }).toEqual({ connected: true, reconnects: 1 });
    expect(notifier.pid()).toBeTypeOf("number");
    expect(notifier.pid()).not.toBe(frozenPid);
    expect(errors.map((error) => error.message)).toContain("the LISTEN connection did not answer a check within 200 ms");
    const id = randomUUID();
    await withAdminClient((client) => client.query("SELECT pg_notify($1, $2)", [COMMIT_CHANNEL, `${id}:7`]));
    await until("the notice on the new connection", () => listener.commits.some((notice) => notice.documentId === id));
    expect(listener.commits.filter((notice) => notice.documentId === id)).toEqual([{ documentId: id, version: 7 }]);
  });

  it("keeps a healthy LISTEN connection through many checks", async () => {
    const { proxy, notifier, listener, errors } = await throughProxy({ intervalMs: 20, timeoutMs: 2_000 });
    const pid = notifier.pid();
    const writesAtStart = proxy.writes[0]!;

    await until("ten checks on the connection", () => proxy.writes[0]! >= writesAtStart + 10);

    expect({ pid: notifier.pid(), resets: listener.resets, errors, connections: proxy.writes.length }).toEqual({ pid, resets: 0, errors: [], connections: 1 });
  });

  it("reports the commits of another store on the database but not the store's own", async () => {
    const first = await openTestStore();
    cleanups.push(first.cleanup);
    const second = await PostgresStore.open(POSTGRES_TEST_URL, { schema: first.schema });
    cleanups.push(() => second.close());
    const listener = new RecordingListener();
    first.store.watchCommits(listener);

    const own = randomUUID();
    const other = randomUUID();
    await writeVersionOne(first.store, own);
    await writeVersionOne(second, other);
    // The channel is database-wide: other test files' stores notify on it too, so only this test's
    // documents count.
    const mine = () => listener.commits.filter((notice) => notice.documentId === own || notice.documentId === other);
    await until("the other store's notice", () => mine().length > 0);
    // A notice of the own commit, had it been sent back, was sent before the other one and would be here.
    expect(mine()).toEqual([{ documentId: other, version: 1 }]);
  });

  it("relays a message to the other stores of its schema only, and never back to the sender", async () => {
    const first = await openTestStore();
    cleanups.push(first.cleanup);
    const second = await PostgresStore.open(POSTGRES_TEST_URL, { schema: first.schema });
    cleanups.push(() => second.close());
    const elsewhere = await openTestStore();
    cleanups.push(elsewhere.cleanup);
    const heard = { first: [] as string[], second: [] as string[], elsewhere: [] as string[] };
    first.store.relay.watch((message) => heard.first.push(message));
    second.relay.watch((message) => heard.second.push(message));
    elsewhere.store.relay.watch((message) => heard.elsewhere.push(message));

    first.store.relay.send('{"a":1}');
    second.relay.send('{"b":2}');
    await until("both messages", () => heard.first.length > 0 && heard.second.length > 0);
    // A message the sender or another schema heard would have come with these: send one more round to be sure.
    second.relay.send('{"c":3}');
    await until("the third message", () => heard.first.length > 1);

    expect(heard).toEqual({ first: ['{"b":2}', '{"c":3}'], second: ['{"a":1}'], elsewhere: [] });
  });

  it("sends no notice for a write that appends no version, such as a snapshot written for compaction", async () => {
    const first = await openTestStore();
    cleanups.push(first.cleanup);
    const second = await PostgresStore.open(POSTGRES_TEST_URL, { schema: first.schema });
    cleanups.push(() => second.close());
    const listener = new RecordingListener();
    second.watchCommits(listener);
    const quiet = randomUUID();
    const loud = randomUUID();
    await writeVersionOne(first.store, quiet);
    const mine = () => listener.commits.filter((notice) => notice.documentId === quiet || notice.documentId === loud);
    await until("the notice of the created document", () => mine().length === 1);

    await first.store.write(quiet, async (tx) => {
      tx.putSnapshot({ version: 1, text: "one" });
    });
    await writeVersionOne(first.store, loud);
    await until("the notice of the second document", () => mine().length >= 2);

    expect(mine()).toEqual([
      { documentId: quiet, version: 1 },
      { documentId: loud, version: 1 },
    ]);
  });
});
