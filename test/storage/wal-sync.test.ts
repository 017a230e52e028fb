import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StorageUnavailableError } from "../../src/storage/store.js";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { WalSync } from "../../src/storage/sqlite/wal-sync.js";
import { durableRead } from "../../src/storage/sqlite/sqlite-reads.js";
import { head, version } from "../support/store-records.js";

const ID = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a02";

/** Runs `use` on a SQLite store in a file of its own, then closes the store and removes the file. */
async function withStore(use: (store: SqliteStore, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "folio-wal-store-"));
  const path = join(dir, "service.db");
  const store = SqliteStore.open(path);
  try {
    await use(store, path);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("WalSync: flushing the WAL off the event loop", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "folio-wal-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("runs one flush at a time; the syncs asked for while one runs share the next, which starts after it", async () => {
    const path = join(dir, "file-wal");
    writeFileSync(path, "frames");
    const wal = new WalSync(path);
    const first = wal.sync();
    expect(wal.pending()).toBe(first);
    const second = wal.sync();
    const third = wal.sync();
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    expect(wal.pending()).toBe(second);
    const order: string[] = [];
    await Promise.all([first.then(() => order.push("first")), second.then(() => order.push("second"))]);
    expect(order).toEqual(["first", "second"]);
    expect(wal.pending()).toBeUndefined();
    // Idle again: the next sync starts a flush of its own at once.
    const fourth = wal.sync();
    expect(wal.pending()).toBe(fourth);
    await fourth;
    await wal.close();
  });

  it("fails every later sync once a flush failed", async () => {
    const wal = new WalSync(join(dir, "missing-wal"));
    await expect(wal.sync()).rejects.toMatchObject({ code: "ENOENT" });
    expect(wal.failed).toMatchObject({ code: "ENOENT" });
    await expect(wal.sync()).rejects.toMatchObject({ code: "ENOENT" });
    await wal.close();
  });
});

describe("sqlite store: a failed flush of the WAL", () => {
  it("refuses the commit it could not make durable and every write after it, and fails the readiness ping; reads go on", async () => {
    await withStore(async (store, path) => {
      // The WAL file is opened at the first flush: gone by then, the flush fails as a failing disk would.
      unlinkSync(`${path}-wal`);
      const write = store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 1));
        tx.appendVersion(version(ID, 1));
      });
      await expect(write).rejects.toBeInstanceOf(StorageUnavailableError);
      const again = store.write(ID, async (tx) => tx.putDocument(head(ID, 1)));
      await expect(again).rejects.toThrow("the SQLite WAL could not be flushed to disk; restart the service");
      await expect(again).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(store.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
      expect((await store.reads(ID).document())?.version).toBe(1);
    });
  });

  it("commits nothing more once a flush failed, not even a write that was already queued behind it", async () => {
    await withStore(async (store, path) => {
      unlinkSync(`${path}-wal`);
      // Both pass the store's own check at once; the second runs only after the first one's flush failed.
      const first = store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 1));
        tx.appendVersion(version(ID, 1));
      });
      const second = store.write(ID, async (tx) => tx.putDocument({ ...head(ID, 1), title: "second" }));
      await expect(first).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(second).rejects.toThrow("the SQLite WAL could not be flushed to disk; restart the service");
      expect((await store.reads(ID).document())?.title).toBe("Plan");
    });
  });

  it("acknowledges a write after its flush, and a read made meanwhile returns it", async () => {
    await withStore(async (store) => {
      const write = store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 1));
        tx.appendVersion(version(ID, 1));
      });
      // The commit runs in the next turn of the event loop; its flush starts right after it.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const [, read] = await Promise.all([write, store.reads(ID).document()]);
      expect(read?.version).toBe(1);
    });
  });
});

describe("durableRead: a read settles after the flush under way right after it", () => {
  it("runs the statement at once and settles only when that flush ends, so a commit made while it waits is never what it returns", async () => {
    let release = () => undefined as void;
    const flush = new Promise<void>((resolve) => (release = resolve));
    let state = "v1 committed, not yet flushed";
    let settled = false;
    const read = durableRead(() => state, () => flush).then((value) => {
      settled = true;
      return value;
    });
    // A commit after the statement ran: the read already has its value, and it is not this one.
    state = "v2 committed meanwhile";
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    expect(await read).toBe("v1 committed, not yet flushed");
  });

  it("settles at once without a flush under way, reports an unavailable file as such, and goes on after a failed flush", async () => {
    expect(await durableRead(() => 7, () => undefined)).toBe(7);
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    await expect(durableRead(() => { throw busy; }, () => undefined)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(await durableRead(() => 8, () => Promise.reject(new Error("EIO")))).toBe(8);
  });
});
