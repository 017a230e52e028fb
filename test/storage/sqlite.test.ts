import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runStoreContract } from "./store-contract.js";
import type { DocumentRecord, VersionRecord } from "../../src/storage/store.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";

runStoreContract("sqlite :memory:", async () => {
  const store = SqliteStore.open(":memory:");
  return { store, cleanup: () => store.close() };
});

runStoreContract("sqlite file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "folio-store-"));
  const store = SqliteStore.open(join(dir, "nested", "service.db"));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe("sqlite store: full texts on disk", () => {
  const ID = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a01";
  const T0 = Date.parse("2026-03-01T12:00:00.000Z");
  let dir: string;
  let path: string;
  let store: SqliteStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "folio-texts-"));
    path = join(dir, "service.db");
    store = SqliteStore.open(path);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const head = (version: number): DocumentRecord => ({ id: ID, title: "T", version, deleted: false, createdAt: T0, updatedAt: T0, checksum: `sha256:${"0".repeat(64)}` });
  const record = (version: number, text: string | null): VersionRecord => ({
    documentId: ID,
    version,
    changeType: version === 1 ? "CREATED" : "UPDATED",
    milestone: text !== null,
    createdAt: T0,
    title: "T",
    ops: [],
    checksum: `sha256:${"0".repeat(64)}`,
    text,
  });
  /** The SQLite storage class of each stored full text. */
  function storageClasses(): Record<string, string> {
    const db = new BetterSqlite3(path, { readonly: true });
    try {
      const versions = db.prepare("SELECT version, typeof(text) AS type FROM versions WHERE document_id = ? ORDER BY version").all(ID) as { version: number; type: string }[];
      const snapshot = db.prepare("SELECT typeof(text) AS type FROM snapshots WHERE document_id = ?").get(ID) as { type: string } | undefined;
      return { ...Object.fromEntries(versions.map((row) => [`v${row.version}`, row.type])), snapshot: snapshot?.type ?? "none" };
    } finally {
      db.close();
    }
  }

  it("keeps a large milestone or snapshot text deflated as a BLOB, a small one as TEXT, and reads both back exactly", async () => {
    const large = Array.from({ length: 2000 }, (_, n) => `line ${n} a\u0000b 😀 \u2028 ${"word ".repeat(n % 7)}`).join("\r\n");
    const small = "a\u0000b 😀";
    await store.write(ID, async (tx) => {
      tx.putDocument(head(2));
      tx.appendVersion(record(1, large));
      tx.appendVersion(record(2, null));
      tx.putSnapshot({ version: 2, text: large });
    });
    await store.write(ID, async (tx) => tx.markMilestone(2, small));

    expect(storageClasses()).toEqual({ v1: "blob", v2: "text", snapshot: "blob" });
    expect((await store.reads(ID).version(1))?.text).toBe(large);
    expect((await store.reads(ID).version(2))?.text).toBe(small);
    expect(await store.reads(ID).snapshot()).toEqual({ version: 2, text: large });
    expect(await store.reads(ID).fullTextAtOrBefore(1)).toEqual({ version: 1, text: large });
    expect((await store.reads(ID).milestones()).map((version) => version.text)).toEqual([large, small]);

    await store.write(ID, async (tx) => tx.markMilestone(2, large));
    expect(storageClasses()).toEqual({ v1: "blob", v2: "blob", snapshot: "blob" });
    expect(await store.reads(ID).fullTextAtOrBefore(2)).toEqual({ version: 2, text: large });
  });

  it("reads large full texts stored as TEXT, as files written before compression hold them", async () => {
    const large = "x".repeat(10_000);
    await store.write(ID, async (tx) => {
      tx.putDocument(head(1));
      tx.appendVersion(record(1, "placeholder"));
    });
    await store.close();
    const db = new BetterSqlite3(path);
    db.prepare("UPDATE versions SET text = ? WHERE document_id = ? AND version = 1").run(large, ID);
    db.prepare("INSERT INTO snapshots (document_id, version, text) VALUES (?, 1, ?)").run(ID, large);
    db.close();
    store = SqliteStore.open(path);

    expect(storageClasses()).toEqual({ v1: "text", snapshot: "text" });
    expect((await store.reads(ID).version(1))?.text).toBe(large);
    expect(await store.reads(ID).snapshot()).toEqual({ version: 1, text: large });
    expect(await store.reads(ID).fullTextAtOrBefore(1)).toEqual({ version: 1, text: large });
  });
});

describe("sqlite store: receipts with large ops", () => {
  const ID = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a03";
  const T0 = Date.parse("2026-03-01T12:00:00.000Z");
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "folio-receipts-"));
    path = join(dir, "service.db");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const opsSinceBase = Array.from({ length: 50 }, (_, n) => ({ index: n * 2, count: 1, lines: [`line ${n}`] }));
  const receipt = (clientId: string, ops: typeof opsSinceBase) => ({ documentId: ID, clientId, seq: 1, requestHash: "h", version: 2, opsSinceBase: ops, createdAt: T0 });
  async function putBoth(store: SqliteStore): Promise<void> {
    await store.write(ID, async (tx) => {
      tx.putDocument({ id: ID, title: "T", version: 1, deleted: false, createdAt: T0, updatedAt: T0, checksum: `sha256:${"0".repeat(64)}` });
      tx.appendVersion({ documentId: ID, version: 1, changeType: "CREATED", milestone: true, createdAt: T0, title: "T", ops: [], checksum: `sha256:${"0".repeat(64)}`, text: "a" });
      tx.putReceipt(receipt("large", opsSinceBase));
      tx.putReceipt(receipt("small", []));
    });
  }

  it("keeps small ops in the receipt's row and large ones in receipt_ops, and compaction takes both", async () => {
    const store = SqliteStore.open(path);
    try {
      await putBoth(store);
      const rows = store.database.prepare("SELECT client_id, ops_since_base, ops_ref FROM patch_receipts ORDER BY client_id").all();
      expect(rows).toEqual([
        { client_id: "large", ops_since_base: "", ops_ref: 1 },
        { client_id: "small", ops_since_base: "[]", ops_ref: null },
      ]);
      expect(store.database.prepare("SELECT id, ops FROM receipt_ops").all()).toEqual([{ id: 1, ops: JSON.stringify(opsSinceBase) }]);
      expect(await store.reads(ID).receipt("large", 1)).toEqual(receipt("large", opsSinceBase));
      expect(await store.compact(T0 + 1)).toEqual({ versions: 0, receipts: 2, ran: true });
      expect(store.database.prepare("SELECT count(*) AS n FROM receipt_ops").get()).toEqual({ n: 0 });
    } finally {
      await store.close();
    }
  });

  it("reads the receipts a file from before the receipt_ops table holds, after upgrading it", async () => {
    // The file as the first schema left it: the later migrations undone, a receipt with its ops in the row.
    const first = SqliteStore.open(path);
    await first.write(ID, async (tx) => tx.putDocument({ id: ID, title: "T", version: 1, deleted: false, createdAt: T0, updatedAt: T0, checksum: `sha256:${"0".repeat(64)}` }));
    await first.close();
    const db = new BetterSqlite3(path);
    db.exec(
      `DROP INDEX patch_receipts_by_shifted_base; ALTER TABLE patch_receipts DROP COLUMN shifted_base; ALTER TABLE patch_receipts DROP COLUMN shifted_through;
       DROP TABLE receipt_ops; ALTER TABLE patch_receipts DROP COLUMN ops_ref; DROP TABLE read_links; DELETE FROM schema_migrations WHERE version >= 2`,
    );
    db.prepare("INSERT INTO patch_receipts VALUES (?, 'old', 1, 'h', 2, ?, ?)").run(ID, JSON.stringify(opsSinceBase), T0);
    db.close();

    const store = SqliteStore.open(path);
    try {
      expect(await store.reads(ID).receipt("old", 1)).toEqual(receipt("old", opsSinceBase));
      await putBoth(store);
      expect(await store.reads(ID).receipt("large", 1)).toEqual(receipt("large", opsSinceBase));
    } finally {
      await store.close();
    }
  });
});

describe("sqlite store: read links", () => {
  it("looks a link up by its read id through the unique index", async () => {
    const store = SqliteStore.open(":memory:");
    try {
      const plan = store.database.prepare("EXPLAIN QUERY PLAN SELECT document_id FROM read_links WHERE read_id = ?").all("x") as { detail: string }[];
      expect(plan.map((row) => row.detail)).toEqual(["SEARCH read_links USING INDEX sqlite_autoindex_read_links_2 (read_id=?)"]);
    } finally {
      await store.close();
    }
  });
});
