import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { StorageUnavailableError } from "../../src/storage/store.js";
import { POSTGRES_TEST_URL, describePostgres, endConnectionOnTitle, openTestStore, storePerTest, withAdminClient } from "../support/postgres.js";
import { RecordingListener } from "../support/recording-listener.js";
import { until } from "../support/wait-until.js";
import { appendNext, head, stageOnly, version } from "../support/store-records.js";

/*
 * Writers of different documents that queue together on the PostgreSQL store share one transaction
 * (src/storage/postgres/postgres-writes.ts). Which transaction wrote a row is read from its xmin.
 */

/** The transaction id that wrote each document's row, by id. */
async function writers(schema: string, ids: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await withAdminClient((client) =>
    client.query<{ id: string; xmin: string }>(`SELECT id::text, xmin::text FROM ${pg.escapeIdentifier(schema)}.documents WHERE id = ANY($1::uuid[])`, [ids]),
  );
  return new Map(rows.map((row) => [row.id, row.xmin]));
}

/** `count` documents at version 1, each created in a write of its own. */
async function documents(store: PostgresStore, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (const id of ids) expect(await appendNext(store, id)).toBe(1);
  return ids;
}

const heads = async (store: PostgresStore, ids: readonly string[]) => Promise.all(ids.map(async (id) => (await store.reads(id).document())?.version));

describePostgres("PostgresStore: writes of several documents in one transaction", () => {
  const openStore = storePerTest();

  it("commits writers of five documents queued together in one transaction, each on its own head", async () => {
    const { store, schema } = await openStore();
    const ids = await documents(store, 5);
    const before = await writers(schema, ids);
    expect(new Set(before.values()).size).toBe(5);

    expect(await Promise.all(ids.map((id) => appendNext(store, id)))).toEqual([2, 2, 2, 2, 2]);
    const after = await writers(schema, ids);
    expect(new Set(after.values()).size).toBe(1);
    expect(await heads(store, ids)).toEqual([2, 2, 2, 2, 2]);
    for (const id of ids) expect((await store.reads(id).versions(0, 10)).map((v) => v.version)).toEqual([1, 2]);
  });

  it("fails only the document whose flush was refused: the others run again alone and commit", async () => {
    const { store, schema } = await openStore();
    const [a, b, c] = (await documents(store, 3)) as [string, string, string];
    const refused = store.write(
      b,
      stageOnly((tx) => {
        tx.putDocument(head(b, 5));
        tx.appendVersion(version(b, 5));
      }),
    );
    const results = await Promise.allSettled([appendNext(store, a), refused, appendNext(store, c)]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    await expect(refused).rejects.toThrow(`appendVersion(5) on document ${b}: the next version is 2`);
    expect(await heads(store, [a, b, c])).toEqual([2, 1, 2]);
    // Run again alone: each in a transaction of its own.
    const after = await writers(schema, [a, c]);
    expect(after.get(a)).not.toBe(after.get(c));
  });

  it("writes nothing a throwing work staged, and commits the others' writes together", async () => {
    const { store, schema } = await openStore();
    const [a, b, c] = (await documents(store, 3)) as [string, string, string];
    const thrown = store.write(b, async (tx) => {
      tx.putDocument(head(b, 2));
      tx.appendVersion(version(b, 2));
      await Promise.resolve();
      throw new Error("refused by the work");
    });
    const [first, , third] = await Promise.allSettled([appendNext(store, a), thrown, appendNext(store, c)]);
    expect([first, third]).toEqual([
      { status: "fulfilled", value: 2 },
      { status: "fulfilled", value: 2 },
    ]);
    await expect(thrown).rejects.toThrow("refused by the work");
    expect(await heads(store, [a, b, c])).toEqual([2, 1, 2]);
    expect((await store.reads(b).versions(0, 10)).map((v) => v.version)).toEqual([1]);
    const after = await writers(schema, [a, c]);
    expect(after.get(a)).toBe(after.get(c));
  });

  it("creates a new document in a transaction of its own while the existing ones share one", async () => {
    const { store, schema } = await openStore();
    const [a, b] = (await documents(store, 2)) as [string, string];
    const created = randomUUID();
    expect(await Promise.all([appendNext(store, a), appendNext(store, created), appendNext(store, b)])).toEqual([2, 1, 2]);
    const after = await writers(schema, [a, b, created]);
    expect(after.get(a)).toBe(after.get(b));
    expect(after.get(created)).not.toBe(after.get(a));
    expect(await heads(store, [a, b, created])).toEqual([2, 2, 1]);
  });

  it("runs writers of one document queued together one after the other, in the order they came", async () => {
    const { store } = await openStore();
    const [a, b] = (await documents(store, 2)) as [string, string];
    expect(await Promise.all([appendNext(store, a), appendNext(store, b), appendNext(store, a), appendNext(store, a)])).toEqual([2, 2, 3, 4]);
    expect((await store.reads(a).versions(0, 10)).map((v) => v.version)).toEqual([1, 2, 3, 4]);
  });

  it("refuses every writer of a shared transaction whose connection was lost, as unavailable, and commits none", async () => {
    const { store, schema } = await openStore({ poolSize: 2 });
    const [a, b] = (await documents(store, 2)) as [string, string];
    await endConnectionOnTitle(schema, "end the connection");
    const lost = store.write(
      b,
      stageOnly((tx) => {
        tx.putDocument(head(b, 2));
        tx.appendVersion(version(b, 2, { title: "end the connection" }));
      }),
    );
    const results = await Promise.allSettled([appendNext(store, a), lost]);
    expect(results.map((result) => result.status === "rejected" && result.reason instanceof StorageUnavailableError)).toEqual([true, true]);
    expect(await heads(store, [a, b])).toEqual([1, 1]);
    expect(await appendNext(store, a)).toBe(2);
  });

  it("does not wait for a row another transaction holds: the others commit, and that one once the row is free", async () => {
    const { store, schema } = await openStore();
    const [a, b, c] = (await documents(store, 3)) as [string, string, string];
    await withAdminClient(async (holder) => {
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM ${pg.escapeIdentifier(schema)}.documents WHERE id = $1 FOR UPDATE`, [b]);
      const held = appendNext(store, b);
      expect(await Promise.all([appendNext(store, a), appendNext(store, c)])).toEqual([2, 2]);
      expect(await heads(store, [a, b, c])).toEqual([2, 1, 2]);
      await holder.query("COMMIT");
      expect(await held).toBe(2);
    });
    const after = await writers(schema, [a, b, c]);
    expect(after.get(a)).toBe(after.get(c));
    expect(after.get(b)).not.toBe(after.get(a));
  });

  it("writes a milestone mark of one document on its own, in the shared transaction of the others", async () => {
    const { store, schema } = await openStore();
    const [a, b] = (await documents(store, 2)) as [string, string];
    const marked = store.write(b, async (tx) => {
      tx.markMilestone(1, "marked text");
      tx.putDocument(head(b, 2));
      tx.appendVersion(version(b, 2));
      return Promise.resolve(2);
    });
    expect(await Promise.all([appendNext(store, a), marked])).toEqual([2, 2]);
    const after = await writers(schema, [a, b]);
    expect(after.get(a)).toBe(after.get(b));
    const [first] = await store.reads(b).milestones();
    expect([first?.version, first?.text]).toEqual([1, "marked text"]);
  });

  it("refuses a write whose work went on after a failed read, and commits the others once run alone", async () => {
    const { store } = await openStore();
    const [a, b] = (await documents(store, 2)) as [string, string];
    let runs = 0;
    // The read fails on the server (no bigint is NaN), which aborts the transaction; the work swallows it.
    const swallowed = store.write(b, async (tx) => {
      runs += 1;
      await tx.versions(Number.NaN, 1).catch(() => []);
      return "went on";
    });
    const [first, second] = await Promise.allSettled([appendNext(store, a), swallowed]);
    expect(first).toEqual({ status: "fulfilled", value: 2 });
    expect(second.status === "rejected" && (second.reason as Error).message).toBe(
      "the transaction was aborted by an earlier error of one of its statements; nothing was committed",
    );
    expect(runs).toBe(2);
    expect(await heads(store, [a, b])).toEqual([2, 1]);
  });

  it("sends another store one commit notice per document of a shared transaction, with its new head", async () => {
    const { store, schema } = await openStore();
    const other = await PostgresStore.open(POSTGRES_TEST_URL, { schema, poolSize: 1 });
    try {
      const listener = new RecordingListener();
      other.watchCommits(listener);
      const ids = await documents(store, 3);
      expect(await Promise.all(ids.map((id) => appendNext(store, id)))).toEqual([2, 2, 2]);
      expect(new Set((await writers(schema, ids)).values()).size).toBe(1);
      await until("the notices of version 2", () => ids.every((id) => listener.saw(id, 2)));
      expect(listener.commits.filter((notice) => notice.version === 2).map((notice) => notice.documentId).sort()).toEqual([...ids].sort());
    } finally {
      await other.close();
    }
  });

  it("shares at most 64 documents per transaction: 70 writers queued together commit in two", async () => {
    const { store, schema } = await openStore();
    const ids = await documents(store, 70);
    expect(await Promise.all(ids.map((id) => appendNext(store, id)))).toEqual(ids.map(() => 2));
    const counts = new Map<string, number>();
    for (const xmin of (await writers(schema, ids)).values()) counts.set(xmin, (counts.get(xmin) ?? 0) + 1);
    expect([...counts.values()].sort((x, y) => x - y)).toEqual([6, 64]);
  });

  it("creates a new document among existing ones on a pool of one connection, without waiting on itself", async () => {
    const { store } = await openStore({ poolSize: 1 });
    const [a, b] = (await documents(store, 2)) as [string, string];
    const created = randomUUID();
    expect(await Promise.all([appendNext(store, a), appendNext(store, created), appendNext(store, b)])).toEqual([2, 1, 2]);
    expect(await heads(store, [a, b, created])).toEqual([2, 2, 1]);
  });

  describe("two stores on one schema", () => {
    const closers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
    });

    it("keeps every document's versions dense when both write the same ten documents at once", async () => {
      const first = await openTestStore({ poolSize: 4 });
      closers.push(first.cleanup);
      const second = await PostgresStore.open(POSTGRES_TEST_URL, { schema: first.schema, poolSize: 4 });
      closers.push(() => second.close());
      const ids = await documents(first.store, 10);
      const rounds = 5;
      for (let round = 0; round < rounds; round++) {
        await Promise.all([...ids.map((id) => appendNext(first.store, id)), ...[...ids].reverse().map((id) => appendNext(second, id))]);
      }
      const dense = Array.from({ length: 1 + 2 * rounds }, (_, i) => i + 1);
      for (const id of ids) expect((await second.reads(id).versions(0, 100)).map((v) => v.version)).toEqual(dense);
    });
  });
});
