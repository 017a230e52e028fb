import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { RECEIPTS_BY_KEY } from "../../src/storage/postgres/postgres-reads.js";
import { POSTGRES_TEST_URL, describePostgres, dropSchema, storePerTest, uniqueSchemaName, withAdminClient } from "../support/postgres.js";
import { T0, appendNext, head, stageOnly, version } from "../support/store-records.js";

/*
 * The PostgreSQL store's schema: migrations, the indexes its reads use, and values stored exactly
 * (U+0000, quotes, large texts and numbers). The contract, two instances and a lost connection:
 * postgres.test.ts.
 */
describePostgres("PostgresStore", () => {
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
        const params = [keys.map(() => id), keys.map((key) => Buffer.from(key.clientId, "utf8")), keys.map((key) => key.seq)];
        const found = await client.query<{ seq: string }>(RECEIPTS_BY_KEY, params);
        // Seqs 150 exist for every author, 250 and 350 for none.
        expect(found.rows.map((row) => Number(row.seq)).sort()).toEqual(Array.from({ length: 10 }, () => 150));
        const explained = await client.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${RECEIPTS_BY_KEY}`, params);
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

    it("writes quotes, backslashes, dollar quotes, U+0000 and astral characters in every value exactly as given, alone or in a shared transaction", async () => {
      const fixture = await openStore();
      const hostiles = [
        `it's \\ \\' '' $guard$ $$ E'\\x00' '); DROP TABLE versions; --`,
        "\u0000 after a NUL \u0000\u0000 and $1 $2::text",
        "😀 \u{10FFFF} \u2028 \u202e reversed \ufeff e\u0301",
      ];
      const ids = hostiles.map(() => randomUUID());
      for (const id of ids) await appendNext(fixture.store, id);
      // Checksums and request hashes are the service's own hex digests, in `text` columns, which refuse U+0000 (below).
      const digest = (hostile: string) => hostile.replaceAll("\u0000", "");
      const receiptOf = (id: string, hostile: string) => ({
        documentId: id, clientId: hostile, seq: 1, requestHash: digest(hostile), version: 2, opsSinceBase: [{ index: 0, count: 1, lines: [hostile] }], createdAt: T0,
      });
      const versionOf = (id: string, hostile: string) =>
        version(id, 2, { title: hostile, checksum: digest(hostile), clientId: hostile, displayName: hostile, ops: [{ index: 0, count: 1, lines: [hostile, "\\"] }] });
      // The first alone, the other two queued together: a transaction of its own, then a shared one.
      const write = (id: string, hostile: string) =>
        fixture.store.write(
          id,
          stageOnly((tx) => {
            tx.putDocument({ ...head(id, 2), title: hostile, checksum: digest(hostile) });
            tx.appendVersion(versionOf(id, hostile));
            tx.putReceipt(receiptOf(id, hostile));
          }),
        );
      await write(ids[0]!, hostiles[0]!);
      await Promise.all([write(ids[1]!, hostiles[1]!), write(ids[2]!, hostiles[2]!)]);
      for (const [n, id] of ids.entries()) {
        const hostile = hostiles[n]!;
        const reads = fixture.store.reads(id);
        expect(await reads.document()).toEqual({ ...head(id, 2), title: hostile, checksum: digest(hostile) });
        expect(await reads.version(2)).toEqual(versionOf(id, hostile));
        expect(await reads.receipt(hostile, 1)).toEqual(receiptOf(id, hostile));
        expect((await reads.versions(0, 10)).map((v) => v.version)).toEqual([1, 2]);
        // And read back through a write's read ahead, with the row locked.
        const key = { clientId: hostile, seq: 1 };
        expect(await fixture.store.write(id, (tx) => tx.receipts([key]), { receipts: [key] })).toEqual([receiptOf(id, hostile)]);
      }
      // U+0000 in a `text` column is refused by PostgreSQL, and nothing of the write is kept.
      const refused = fixture.store.write(ids[0]!, stageOnly((tx) => tx.putDocument({ ...head(ids[0]!, 3), checksum: "a\u0000b" })));
      await expect(refused).rejects.toThrow(/invalid byte sequence for encoding "UTF8": 0x00/);
      expect((await fixture.store.reads(ids[0]!).document())?.version).toBe(2);
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
