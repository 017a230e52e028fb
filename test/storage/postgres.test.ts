import { until } from "../support/wait-until.js";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { COMPACTION_LOCK_CLASS, PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { StorageUnavailableError } from "../../src/storage/store.js";
import { RecordingListener } from "../support/recording-listener.js";
import { POSTGRES_TEST_URL, describePostgres, endConnectionOnTitle, openTestStore, storePerTest, withAdminClient } from "../support/postgres.js";
import { runStoreContract } from "./store-contract.js";
import { T0, appendNext, head, stageOnly, version } from "../support/store-records.js";

/*
 * The PostgreSQL store: the storage contract, two instances sharing one schema, and a connection lost
 * during a write. Its schema (migrations, the indexes its reads use, how values are stored):
 * postgres-schema.test.ts.
 */

describePostgres("PostgresStore", () => {
  runStoreContract("postgres", () => openTestStore());

  describe("two instances on one schema", () => {
    const closers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
    });

    async function twoInstances(poolSize = 4): Promise<[PostgresStore, PostgresStore, string]> {
      const first = await openTestStore({ poolSize });
      closers.push(first.cleanup);
      const second = await PostgresStore.open(POSTGRES_TEST_URL, { schema: first.schema, poolSize });
      closers.push(() => second.close());
      return [first.store, second, first.schema];
    }

    it("serves no link through one store once the other replaced or removed it: nothing is cached", async () => {
      const [a, b] = await twoInstances();
      const id = randomUUID();
      await appendNext(a, id);
      const [first, second] = [randomUUID(), randomUUID()];
      expect(await a.readLinks.replace(id, first, T0)).toBe(true);
      expect(await b.readLinks.documentOf(first)).toBe(id);

      expect(await b.readLinks.replace(id, second, T0 + 1)).toBe(true);
      expect({ first: await a.readLinks.documentOf(first), second: await a.readLinks.documentOf(second) }).toEqual({ first: undefined, second: id });
      expect(await a.readLinks.remove(id)).toBe(true);
      expect({ second: await b.readLinks.documentOf(second), readId: await b.readLinks.readIdOf(id) }).toEqual({ second: undefined, readId: undefined });
    });

    it("keeps versions dense when both write one document from many tasks", async () => {
      const [a, b] = await twoInstances();
      const id = randomUUID();
      const writers = 30;
      const written = await Promise.all(
        Array.from({ length: writers * 2 }, (_, i) => appendNext(i % 2 === 0 ? a : b, id)),
      );
      expect([...written].sort((x, y) => x - y)).toEqual(Array.from({ length: writers * 2 }, (_, i) => i + 1));
      expect((await b.reads(id).document())?.version).toBe(writers * 2);
      const versions = await a.reads(id).versions(0, 1_000);
      expect(versions.map((v) => v.version)).toEqual(Array.from({ length: writers * 2 }, (_, i) => i + 1));
    });

    it("reads the receipts a write names ahead only once it holds the lock: it sees one the lock's last holder committed", async () => {
      const [a, b] = await twoInstances();
      const id = randomUUID();
      await appendNext(a, id);
      const receipt = { documentId: id, clientId: "twice", seq: 1, requestHash: "h", version: 1, opsSinceBase: [], createdAt: T0 };
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let holding = false;
      const first = a.write(id, async (tx) => {
        holding = true;
        await gate;
        tx.putReceipt(receipt);
      });
      await until("the first write holds the lock", () => holding);
      const second = b.write(id, (tx) => tx.receipts([{ clientId: "twice", seq: 1 }]), { receipts: [{ clientId: "twice", seq: 1 }] });
      // The second write's lock statement waits for the row lock; its receipts are read after it.
      for (let polls = 0; polls < 200; polls++) {
        const waiting = await withAdminClient((client) =>
          client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'"),
        );
        if (waiting.rows[0]!.n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      release();
      await first;
      expect(await second).toEqual([receipt]);
    });

    it("answers the receipts named ahead from the read made with the lock, and others with a read of their own", async () => {
      const fixture = await openTestStore();
      closers.push(fixture.cleanup);
      const id = randomUUID();
      await appendNext(fixture.store, id);
      const insert = (clientId: string) =>
        withAdminClient((client) =>
          client.query(
            `INSERT INTO ${fixture.schema}.patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at)
             VALUES ($1, $2, 1, 'h', 1, '[]', $3)`,
            [id, Buffer.from(clientId, "utf8"), T0],
          ),
        );
      const read = await fixture.store.write(
        id,
        async (tx) => {
          // Committed by another session after the write's opening read, and so not in it.
          await insert("named");
          await insert("unnamed");
          return { named: await tx.receipts([{ clientId: "named", seq: 1 }]), unnamed: await tx.receipts([{ clientId: "unnamed", seq: 1 }]) };
        },
        { receipts: [{ clientId: "named", seq: 1 }] },
      );
      expect(read.named).toEqual([]);
      expect(read.unnamed.map((receipt) => receipt.clientId)).toEqual(["unnamed"]);
      expect((await fixture.store.reads(id).receipts([{ clientId: "named", seq: 1 }])).map((receipt) => receipt.clientId)).toEqual(["named"]);
    });

    it("delivers a commit made by the other instance to a watcher", async () => {
      const [a, b] = await twoInstances();
      const listener = new RecordingListener();
      a.watchCommits(listener);
      const id = randomUUID();
      await appendNext(b, id);
      await appendNext(b, id);
      await until("both notices", () => listener.saw(id, 1) && listener.saw(id, 2));
      expect(listener.commits.filter((notice) => notice.documentId === id)).toEqual([
        { documentId: id, version: 1 },
        { documentId: id, version: 2 },
      ]);
    });

    it("stops calling a listener once it unsubscribes", async () => {
      const [a, b] = await twoInstances();
      const gone = new RecordingListener();
      const stays = new RecordingListener();
      a.watchCommits(gone)();
      a.watchCommits(stays);
      const id = randomUUID();
      await appendNext(b, id);
      await until("the remaining listener's notice", () => stays.saw(id, 1));
      expect(gone.commits).toEqual([]);
    });

    it("reconnects after its LISTEN connection is killed, resets listeners and delivers later commits", async () => {
      const [a, b] = await twoInstances();
      const listener = new RecordingListener();
      a.watchCommits(listener);
      const killed = a.listenerPid();
      expect(killed).toBeTypeOf("number");
      await withAdminClient((client) => client.query("SELECT pg_terminate_backend($1)", [killed]));
      await until("the listener's reset", () => listener.resets === 1);
      expect(a.listenerPid()).not.toBe(killed);
      const id = randomUUID();
      await appendNext(b, id);
      await until("a notice after the reconnect", () => listener.saw(id, 1));
    });

    it("closes promptly while its LISTEN connection is reconnecting", async () => {
      const [a] = await twoInstances();
      const listener = new RecordingListener();
      a.watchCommits(listener);
      await withAdminClient((client) => client.query("SELECT pg_terminate_backend($1)", [a.listenerPid()]));
      const started = Date.now();
      await a.close();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(a.listenerPid()).toBeUndefined();
      await expect(a.reads(randomUUID()).document()).rejects.toThrow(/closed/);
    });

    it("compacts once when both instances compact at the same time", async () => {
      const [a, b] = await twoInstances();
      const id = randomUUID();
      for (let n = 1; n <= 6; n++) await appendNext(a, id);
      await a.write(id, stageOnly((tx) => tx.putSnapshot({ version: 5, text: "s5" })));
      const results = await Promise.all([a.compact(T0 + 100), b.compact(T0 + 100)]);
      // Either one found the other holding the lock, or they ran one after the other and the
      // second found nothing left: the three droppable versions (2, 3, 4) are counted once.
      expect(results.some((result) => result.ran)).toBe(true);
      expect(results.map((result) => result.versions).sort()).toEqual([0, 3]);
      expect((await a.reads(id).versions(0, 10)).map((v) => v.ops === null)).toEqual([false, true, true, true, false, false]);
    });

    it("reports ran: false while another session holds the compaction lock of the schema", async () => {
      const [a, , schema] = await twoInstances();
      await withAdminClient(async (client) => {
        await client.query("BEGIN");
        await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [COMPACTION_LOCK_CLASS, schema]);
        expect(await a.compact(T0)).toEqual({ ran: false, versions: 0, receipts: 0 });
        await client.query("ROLLBACK");
      });
      expect(await a.compact(T0)).toEqual({ ran: true, versions: 0, receipts: 0 });
    });
  });

  describe("a connection lost during a write", () => {
    const openStore = storePerTest();

    it("refuses the write as unavailable, commits nothing, keeps the process up and serves the next write on a new connection", async () => {
      const fixture = await openStore({ poolSize: 1 });
      const id = randomUUID();
      await appendNext(fixture.store, id);
      // The server ends the connection in the middle of the write's last query.
      await endConnectionOnTitle(fixture.schema, "end the connection");
      const refused = fixture.store.write(
        id,
        stageOnly((tx) => {
          tx.putDocument(head(id, 2));
          tx.appendVersion(version(id, 2, { title: "end the connection" }));
        }),
      );
      await expect(refused).rejects.toBeInstanceOf(StorageUnavailableError);
      expect((await fixture.store.reads(id).document())?.version).toBe(1);
      expect(await appendNext(fixture.store, id)).toBe(2);
      expect((await fixture.store.reads(id).versions(0, 10)).map((v) => v.version)).toEqual([1, 2]);
    });
  });
});
