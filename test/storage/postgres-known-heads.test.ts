import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { DOCUMENT_COLUMNS, VERSION_COLUMNS, documentParams, versionParams } from "../../src/storage/postgres/postgres-rows.js";
import type { DocumentTransaction } from "../../src/storage/store.js";
import { POSTGRES_TEST_URL, describePostgres, storePerTest, withAdminClient } from "../support/postgres.js";
import { RecordingListener } from "../support/recording-listener.js";
import { T0, appendNext, head, version } from "../support/store-records.js";
import { until } from "../support/wait-until.js";

/*
 * A lone write on the PostgreSQL store is decided on the head the store knows (the one it committed
 * last) and committed in one round trip; the commit checks that head, and when it moved or a
 * receipt was there after all, nothing is written and the work runs again the usual way, on what
 * it reads under the row lock (src/storage/postgres/postgres-writes.ts, `writeOnKnownHead`).
 */

/** Version `n` of `id` written by another session, without the commit notice a store sends. */
async function appendBehindTheStore(schema: string, id: string, n: number): Promise<void> {
  const table = (name: string) => `${pg.escapeIdentifier(schema)}.${name}`;
  const placeholders = (count: number) => Array.from({ length: count }, (_, i) => `$${i + 1}`).join(", ");
  await withAdminClient(async (client) => {
    await client.query(
      `INSERT INTO ${table("documents")} (${DOCUMENT_COLUMNS}) VALUES (${placeholders(7)})
        ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, updated_at = EXCLUDED.updated_at, checksum = EXCLUDED.checksum`,
      documentParams(head(id, n)),
    );
    await client.query(`INSERT INTO ${table("versions")} (${VERSION_COLUMNS}) VALUES (${placeholders(11)})`, versionParams(version(id, n)));
  });
}

describePostgres("PostgresStore: a lone write on the head it knows", () => {
  const openStore = storePerTest();

  it("decides the write while another session holds the row, and waits for the lock only to commit", async () => {
    const { store, schema } = await openStore();
    const id = randomUUID();
    await appendNext(store, id);
    const holder = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM ${pg.escapeIdentifier(schema)}.documents WHERE id = $1 FOR UPDATE`, [id]);
      let decided = false;
      let committed = false;
      const write = store
        .write(id, async (tx) => {
          const next = ((await tx.document())?.version ?? 0) + 1;
          tx.putDocument(head(id, next));
          tx.appendVersion(version(id, next));
          decided = true;
          return next;
        })
        .then((next) => {
          committed = true;
          return next;
        });
      await until("the work decided on the known head", () => decided);
      // Still waiting for the row: a write that read its head under the lock would not have run its work yet.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(committed).toBe(false);
      await holder.query("COMMIT");
      expect(await write).toBe(2);
    } finally {
      await holder.end();
    }
    expect((await store.reads(id).versions(0, 10)).map((record) => record.version)).toEqual([1, 2]);
  });

  it("decides again on the stored head when another session appended a version it was not told of", async () => {
    const { store, schema } = await openStore();
    const id = randomUUID();
    await appendNext(store, id);
    await appendBehindTheStore(schema, id, 2);
    const seen: number[] = [];
    const next = await store.write(id, async (tx) => {
      const found = (await tx.document())?.version ?? 0;
      seen.push(found);
      tx.putDocument(head(id, found + 1));
      tx.appendVersion(version(id, found + 1));
      return found + 1;
    });
    // First on the head it knew (1): the commit's check refused it and nothing was written; then on the stored one.
    expect({ next, seen }).toEqual({ next: 3, seen: [1, 2] });
    expect((await store.reads(id).versions(0, 10)).map((record) => record.version)).toEqual([1, 2, 3]);
  });

  it("answers a patch sent again from its receipt, stored by another session: the receipts' key refuses the commit on the known head", async () => {
    const { store, schema } = await openStore();
    const id = randomUUID();
    await appendNext(store, id);
    await withAdminClient((client) =>
      client.query(
        `INSERT INTO ${pg.escapeIdentifier(schema)}.patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at)
         VALUES ($1, $2, 7, 'h', 1, '[]', $3)`,
        [id, Buffer.from("again", "utf8"), T0],
      ),
    );
    const key = { clientId: "again", seq: 7 };
    let runs = 0;
    const answer = await store.write(
      id,
      async (tx) => {
        runs += 1;
        const [receipt] = await tx.receipts([key]);
        if (receipt) return `repeat of version ${receipt.version}`;
        tx.putDocument(head(id, 2));
        tx.appendVersion(version(id, 2));
        tx.putReceipt({ documentId: id, ...key, requestHash: "h", version: 2, opsSinceBase: [], createdAt: T0 });
        return "new version 2";
      },
      { receipts: [key] },
    );
    expect({ answer, runs }).toEqual({ answer: "repeat of version 1", runs: 2 });
    expect((await store.reads(id).document())?.version).toBe(1);
  });

  it("commits nothing decided as if a receipt named ahead were missing, even where that patch stages nothing (refused) and another appends", async () => {
    const { store, schema } = await openStore();
    const id = randomUUID();
    await appendNext(store, id);
    await withAdminClient((client) =>
      client.query(
        `INSERT INTO ${pg.escapeIdentifier(schema)}.patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at)
         VALUES ($1, $2, 3, 'h', 1, '[]', $3)`,
        [id, Buffer.from("sent-twice", "utf8"), T0],
      ),
    );
    const key = { clientId: "sent-twice", seq: 3 };
    const answers: string[] = [];
    const answer = await store.write(
      id,
      async (tx) => {
        const [receipt] = await tx.receipts([key]);
        // The repeat: answered from its receipt, or refused as a patch on a stale base; another patch of the batch appends either way.
        answers.push(receipt ? `repeat of version ${receipt.version}` : "refused");
        tx.putDocument(head(id, 2));
        tx.appendVersion(version(id, 2));
        return answers.at(-1);
      },
      { receipts: [key] },
    );
    expect({ answer, answers }).toEqual({ answer: "repeat of version 1", answers: ["refused", "repeat of version 1"] });
    expect((await store.reads(id).versions(0, 10)).map((record) => record.version)).toEqual([1, 2]);
  });

  it("lets a write that writes nothing stand on the known head only when that head is still the stored one", async () => {
    const { store, schema } = await openStore();
    const id = randomUUID();
    await appendNext(store, id);
    const runs = { count: 0 };
    const headSeen = async (tx: DocumentTransaction) => {
      runs.count += 1;
      return (await tx.document())?.version;
    };
    expect({ seen: await store.write(id, headSeen), runs: runs.count }).toEqual({ seen: 1, runs: 1 });
    await appendBehindTheStore(schema, id, 2);
    runs.count = 0;
    expect({ seen: await store.write(id, headSeen), runs: runs.count }).toEqual({ seen: 2, runs: 2 });
  });

  it("writes a batch whose rows cannot go with the COMMIT (a milestone mark) once the lock shows the head it knows", async () => {
    const { store, schema } = await openStore();
    const id = randomUUID();
    await appendNext(store, id);
    await appendNext(store, id);
    const seen: number[] = [];
    const markAndAppend = async (tx: DocumentTransaction) => {
      const found = (await tx.document())?.version ?? 0;
      seen.push(found);
      tx.markMilestone(found, `line ${found}`);
      tx.putDocument(head(id, found + 1));
      tx.appendVersion(version(id, found + 1));
      return found + 1;
    };
    expect({ next: await store.write(id, markAndAppend), seen }).toEqual({ next: 3, seen: [2] });
    await appendBehindTheStore(schema, id, 4);
    seen.length = 0;
    expect({ next: await store.write(id, markAndAppend), seen }).toEqual({ next: 5, seen: [3, 4] });
    const versions = await store.reads(id).versions(0, 10);
    expect(versions.map((record) => [record.version, record.milestone])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, true],
      [5, false],
    ]);
  });

  describe("with a second instance", () => {
    it("forgets the head it knows once the other instance's commit notice arrives, and reads the stored one", async () => {
      const { store: a, schema } = await openStore();
      const b = await PostgresStore.open(POSTGRES_TEST_URL, { schema, poolSize: 2 });
      try {
        const heard = new RecordingListener();
        a.watchCommits(heard);
        const id = randomUUID();
        await appendNext(a, id);
        await appendNext(b, id);
        await until("a's notice of b's commit", () => heard.saw(id, 2));
        const runs = { count: 0 };
        const next = await a.write(id, async (tx) => {
          runs.count += 1;
          const found = (await tx.document())?.version ?? 0;
          tx.putDocument(head(id, found + 1));
          tx.appendVersion(version(id, found + 1));
          return found + 1;
        });
        expect({ next, runs: runs.count }).toEqual({ next: 3, runs: 1 });
      } finally {
        await b.close();
      }
    });
  });
});
