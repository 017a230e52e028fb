import { until } from "../support/wait-until.js";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { COMPACTION_LOCK_CLASS, PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { receiptsLiteralRead } from "../../src/storage/postgres/postgres-reads.js";
import { StorageUnavailableError, type DocumentTransaction, type Store, type VersionRecord } from "../../src/storage/store.js";
import { RecordingListener } from "../support/recording-listener.js";
import {
  POSTGRES_TEST_URL,
  describePostgres,
  dropSchema,
  openTestStore,
  uniqueSchemaName,
  withAdminClient,
} from "../support/postgres.js";
import { runStoreContract } from "./store-contract.js";
import { T0, head, version } from "../support/store-records.js";

/** Opens a store on a fresh schema for each test of the enclosing describe; closed and dropped after it. */
function storePerTest(): (options?: Parameters<typeof openTestStore>[0]) => ReturnType<typeof openTestStore> {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });
  return async (options) => {
    const fixture = await openTestStore(options);
    cleanup = fixture.cleanup;
    return fixture;
  };
}

/** Appends the next version after whatever head the write finds. */
function appendNext(store: Store, id: string, extra: (n: number) => Partial<VersionRecord> = () => ({})): Promise<number> {
  return store.write(id, async (tx) => {
    const next = ((await tx.document())?.version ?? 0) + 1;
    tx.putDocument(head(id, next));
    tx.appendVersion(version(id, next, extra(next)));
    return next;
  });
}

/** A work function that only stages writes. */
function stageOnly(stage: (tx: DocumentTransaction) => void): (tx: DocumentTransaction) => Promise<void> {
  return (tx) => {
    stage(tx);
    return Promise.resolve();
  };
}

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
      // The second write's opening query waits for the row lock before its receipts are read.
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

  describe("migrations", () => {
    it("succeed for two instances opening a fresh schema at once, and once more later", async () => {
      const schema = uniqueSchemaName();
      try {
        const stores = await Promise.all([
          PostgresStore.open(POSTGRES_TEST_URL, { schema }),
          PostgresStore.open(POSTGRES_TEST_URL, { schema }),
        ]);
        await Promise.all(stores.map((store) => store.close()));
        const again = await PostgresStore.open(POSTGRES_TEST_URL, { schema });
        await again.close();
        const applied = await withAdminClient((client) =>
          client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`),
        );
        expect(applied.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
      } finally {
        await dropSchema(schema);
      }
    });

    it("read the receipts a schema from before the second migration holds, after upgrading it", async () => {
      const schema = uniqueSchemaName();
      const id = randomUUID();
      const opsSinceBase = [{ index: 0, count: 1, lines: ["old", "\u0000"] }];
      try {
        await (await PostgresStore.open(POSTGRES_TEST_URL, { schema })).close();
        // The schema as the first migration left it, with a receipt written then.
        await withAdminClient(async (client) => {
          await client.query(`ALTER TABLE ${schema}.patch_receipts DROP COLUMN shifted_base, DROP COLUMN shifted_through`);
          await client.query(`DELETE FROM ${schema}.schema_migrations WHERE version = 2`);
          await client.query(`INSERT INTO ${schema}.patch_receipts VALUES ($1, $2, 1, 'h', 2, $3, $4)`, [id, Buffer.from("old"), JSON.stringify(opsSinceBase), T0]);
        });
        const store = await PostgresStore.open(POSTGRES_TEST_URL, { schema });
        try {
          expect(await store.reads(id).receipt("old", 1)).toEqual({ documentId: id, clientId: "old", seq: 1, requestHash: "h", version: 2, opsSinceBase, createdAt: T0 });
        } finally {
          await store.close();
        }
      } finally {
        await dropSchema(schema);
      }
    });

    it("refuses a schema name that is not a plain lower-case identifier", async () => {
      await expect(PostgresStore.open(POSTGRES_TEST_URL, { schema: 'x"; DROP TABLE y; --' })).rejects.toThrow(
        /invalid schema name/,
      );
      await expect(PostgresStore.open(POSTGRES_TEST_URL, { schema: "Upper" })).rejects.toThrow(/invalid schema name/);
    });
  });

  describe("a connection lost during a write", () => {
    const openStore = storePerTest();

    it("refuses the write as unavailable, commits nothing, keeps the process up and serves the next write on a new connection", async () => {
      const fixture = await openStore({ poolSize: 1 });
      const id = randomUUID();
      await appendNext(fixture.store, id);
      // The server ends the connection in the middle of the write's last query.
      await withAdminClient(async (client) => {
        await client.query(`SET search_path = ${fixture.schema}`);
        await client.query(`CREATE FUNCTION end_connection() RETURNS trigger AS $f$ BEGIN
            IF NEW.title = convert_to('end the connection', 'UTF8') THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
            RETURN NEW;
          END $f$ LANGUAGE plpgsql`);
        await client.query("CREATE TRIGGER end_connection BEFORE INSERT ON versions FOR EACH ROW EXECUTE FUNCTION end_connection()");
      });
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

  describe("receipt reads", () => {
    const openStore = storePerTest();

    it("looks a batch's receipts up by key even when the table's statistics know nothing of a hot document's thousands", async () => {
      const fixture = await openStore();
      const id = randomUUID();
      const keys = Array.from({ length: 30 }, (_, i) => ({ clientId: `author-${i}`, seq: 150 + (i % 3) * 100 }));
      const plan = await withAdminClient(async (client) => {
        await client.query(`SET search_path = ${fixture.schema}`);
        // No ANALYZE, no autovacuum: the planner's view of a table that grew since it last looked.
        await client.query("ALTER TABLE patch_receipts SET (autovacuum_enabled = false)");
        await client.query(
          `INSERT INTO patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at)
           SELECT $1, convert_to('author-' || c, 'UTF8'), s, 'h', s, '[]', 0 FROM generate_series(0, 49) c, generate_series(1, 200) s`,
          [id],
        );
        const sql = receiptsLiteralRead(id, keys);
        expect(sql).toBeDefined();
        const found = await client.query<{ seq: string }>(sql!);
        // Seqs 150 exist for every author, 250 and 350 for none.
        expect(found.rows.map((row) => Number(row.seq)).sort()).toEqual(Array.from({ length: 10 }, () => 150));
        const explained = await client.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${sql!}`);
        return JSON.stringify(explained.rows[0]!["QUERY PLAN"]);
      });
      const scans = [...plan.matchAll(/"Node Type":"([^"]*Scan)","[^}]*?"Relation Name":"patch_receipts"/g)].map((match) => match[1]);
      expect(scans).toEqual(["Index Scan"]);
      expect(plan).toContain('"Index Name":"patch_receipts_pkey"');
    });
  });

  describe("read links", () => {
    const openStore = storePerTest();

    it("looks a link up by its read id through the unique index, however many links there are", async () => {
      const fixture = await openStore();
      const plan = await withAdminClient(async (client) => {
        await client.query(`SET search_path = ${fixture.schema}`);
        await client.query("ALTER TABLE read_links SET (autovacuum_enabled = false)");
        await client.query("INSERT INTO read_links SELECT gen_random_uuid(), gen_random_uuid(), 0 FROM generate_series(1, 5000)");
        const explained = await client.query<{ "QUERY PLAN": unknown }>(
          `EXPLAIN (FORMAT JSON) SELECT document_id AS id FROM read_links WHERE read_id = '${randomUUID()}'`,
        );
        return JSON.stringify(explained.rows[0]!["QUERY PLAN"]);
      });
      expect(plan).toMatch(/"Node Type":"Index Scan"/);
      expect(plan).toContain('"Index Name":"read_links_read_id_key"');
      const indexes = await withAdminClient((client) =>
        client.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'read_links' ORDER BY indexname", [fixture.schema]),
      );
      expect(indexes.rows.map((row) => row.indexdef.replace(`${fixture.schema}.`, ""))).toEqual([
        "CREATE UNIQUE INDEX read_links_pkey ON read_links USING btree (document_id)",
        "CREATE UNIQUE INDEX read_links_read_id_key ON read_links USING btree (read_id)",
      ]);
    });
  });

  describe("encoding", () => {
    const openStore = storePerTest();

    it("stores texts as their UTF-8 bytes and ops as JSON text, U+0000 and astral characters included", async () => {
      const fixture = await openStore();
      const id = randomUUID();
      const text = "\u0000start\n😀 \u{10FFFF}\u0000\nend\u0000";
      await fixture.store.write(
        id,
        stageOnly((tx) => {
          tx.putDocument({ ...head(id, 1), title: "\u0000😀" });
          tx.appendVersion(version(id, 1, { text, ops: [{ index: 0, count: 0, lines: text.split("\n") }], clientId: "\u0000" }));
        }),
      );
      const raw = await withAdminClient((client) =>
        client.query<{ text: Buffer; ops: string; client_id: Buffer }>(
          `SELECT text, ops, client_id FROM ${fixture.schema}.versions WHERE document_id = $1`,
          [id],
        ),
      );
      expect(raw.rows[0]!.text.equals(Buffer.from(text, "utf8"))).toBe(true);
      expect(raw.rows[0]!.ops).toContain("\\u0000");
      expect(raw.rows[0]!.client_id.equals(Buffer.from([0]))).toBe(true);
      const stored = await fixture.store.reads(id).version(1);
      expect(stored?.text).toBe(text);
      expect(stored?.ops?.[0]?.lines).toEqual(text.split("\n"));
      expect((await fixture.store.reads(id).document())?.title).toBe("\u0000😀");
    });

    it("writes quotes, backslashes and dollar quotes in every value of a flush sent with the COMMIT exactly as given", async () => {
      const fixture = await openStore();
      const id = randomUUID();
      const hostile = `it's \\ \\' '' $guard$ $$ E'\\x00' '); DROP TABLE versions; --`;
      const receipt = { documentId: id, clientId: hostile, seq: 1, requestHash: hostile, version: 2, opsSinceBase: [{ index: 0, count: 1, lines: [hostile] }], createdAt: T0 };
      await appendNext(fixture.store, id);
      await fixture.store.write(
        id,
        stageOnly((tx) => {
          tx.putDocument({ ...head(id, 2), title: hostile, checksum: hostile });
          tx.appendVersion(version(id, 2, { title: hostile, checksum: hostile, clientId: hostile, displayName: hostile, ops: [{ index: 0, count: 1, lines: [hostile, "\\"] }] }));
          tx.putReceipt(receipt);
        }),
      );
      const reads = fixture.store.reads(id);
      expect(await reads.document()).toEqual({ ...head(id, 2), title: hostile, checksum: hostile });
      expect(await reads.version(2)).toEqual(
        version(id, 2, { title: hostile, checksum: hostile, clientId: hostile, displayName: hostile, ops: [{ index: 0, count: 1, lines: [hostile, "\\"] }] }),
      );
      expect(await reads.receipt(hostile, 1)).toEqual(receipt);
      expect((await reads.versions(0, 10)).map((v) => v.version)).toEqual([1, 2]);
    });

    it("round-trips a large text and version numbers beyond 32 bits", async () => {
      const fixture = await openStore();
      const id = randomUUID();
      const big = 2 ** 40;
      const text = "line \u0000 😀\n".repeat(100_000);
      await fixture.store.write(id, stageOnly((tx) => tx.putSnapshot({ version: big, text })));
      expect(await fixture.store.reads(id).snapshot()).toEqual({ version: big, text });
      expect(await fixture.store.reads(id).fullTextAtOrBefore(big)).toEqual({ version: big, text });
    });
  });
});
