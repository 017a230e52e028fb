import BetterSqlite3, { type Database } from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/storage/sqlite/group-commit.js";
import { WalSync } from "../../src/storage/sqlite/wal-sync.js";

describe("sqlite group commit", () => {
  let dir: string;
  let db: Database;
  let wal: WalSync;
  let group: GroupCommit;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "folio-group-commit-"));
    db = new BetterSqlite3(join(dir, "group.db"));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec("CREATE TABLE rows (writer TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (writer, n))");
    wal = new WalSync(`${db.name}-wal`);
    group = new GroupCommit(db, wal);
  });

  afterEach(async () => {
    await group.drain();
    await wal.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (writer: string, n: number) => () => void db.prepare("INSERT INTO rows (writer, n) VALUES (?, ?)").run(writer, n);
  const fail = (message: string) => () => {
    throw new Error(message);
  };
  const rows = () => db.prepare("SELECT writer, n FROM rows ORDER BY writer, n").all();

  it("commits a lone writer's writes together", async () => {
    await group.commit([insert("a", 1), insert("a", 2)]);
    expect(rows()).toEqual([
      { writer: "a", n: 1 },
      { writer: "a", n: 2 },
    ]);
  });

  it("keeps nothing of a lone writer that fails part-way, and refuses it with its error", async () => {
    await expect(group.commit([insert("a", 1), fail("refused after one row")])).rejects.toThrow("refused after one row");
    expect(rows()).toEqual([]);
    // The connection is left outside any transaction: the next commit works.
    await group.commit([insert("a", 3)]);
    expect(rows()).toEqual([{ writer: "a", n: 3 }]);
  });

  it("commits the other writers of a turn when one of them fails part-way, and none of the failed one's rows", async () => {
    const settled = await Promise.allSettled([
      group.commit([insert("a", 1), insert("a", 2)]),
      group.commit([insert("b", 1), fail("b refused")]),
      group.commit([insert("c", 1)]),
    ]);
    expect(settled.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error("b refused"));
    expect(rows()).toEqual([
      { writer: "a", n: 1 },
      { writer: "a", n: 2 },
      { writer: "c", n: 1 },
    ]);
  });

  it("refuses a lone writer whose statement SQLite refuses, and keeps its earlier rows out", async () => {
    await group.commit([insert("a", 1)]);
    await expect(group.commit([insert("a", 2), insert("a", 1)])).rejects.toThrow(/UNIQUE constraint failed/);
    expect(rows()).toEqual([{ writer: "a", n: 1 }]);
  });
});
