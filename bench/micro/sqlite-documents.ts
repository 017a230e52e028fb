/**
 * SQLite's share of a one-line patch, in-process, on one document and over many: the store's own
 * schema, pragmas and statements (sqlite-open.ts, sqlite-statements.ts, sqlite-transaction.ts), a
 * version, its document row and its receipt per patch, `GROUP` writers per transaction as the group
 * commit makes them, without the WAL flush (fdatasync runs off the event loop). Prints CPU time per
 * patch (the statements, the commit's WAL frames and SQLite's own checkpoints) for each document count.
 * `npx tsx bench/micro/sqlite-documents.ts [documents...]` (default 1 1000; not part of `npm run bench`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/sqlite/sqlite-open.js";
import { prepareStatements } from "../../src/storage/sqlite/sqlite-statements.js";
import { stagedStatements } from "../../src/storage/sqlite/sqlite-transaction.js";
import { StagedWrites } from "../../src/storage/staged-writes.js";

const GROUP = 13;
const TRANSACTIONS = 3000;
const CHECKSUM = `sha256:${"ab".repeat(32)}`;
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);

function measure(documents: number): number[] {
  const dir = mkdtempSync(join(tmpdir(), "folio-micro-"));
  try {
    const { db } = openDatabase(join(dir, "micro.db"), {});
    const sql = prepareStatements(db);
    const ids = Array.from({ length: documents }, (_, i) => `0b7c${String(i).padStart(4, "0")}-1d2e-4f5a-8b9c-0d1e2f3a4b5c`);
    const heads = new Map(ids.map((id) => [id, 0]));
    let seq = 0;
    const patch = (id: string) => {
      const staged = new StagedWrites(id);
      const version = heads.get(id)! + 1;
      heads.set(id, version);
      const now = Date.now();
      staged.putDocument({ id, title: "micro", version, deleted: false, createdAt: now, updatedAt: now, checksum: CHECKSUM });
      staged.appendVersion({
        documentId: id,
        version,
        changeType: version === 1 ? "CREATED" : "UPDATED",
        milestone: version === 1,
        createdAt: now,
        title: "micro",
        ops: version === 1 ? null : [{ index: 7, count: 1, lines: [`a line typed by someone, keystroke ${version}`] }],
        checksum: CHECKSUM,
        text: version === 1 ? "a text\n".repeat(20) : null,
        clientId: "client-0123456789",
      });
      if (version > 1) staged.putReceipt({ documentId: id, clientId: "client-0123456789", seq: ++seq, requestHash: CHECKSUM, version, opsSinceBase: [], createdAt: now });
      staged.seal();
      return stagedStatements(sql, staged);
    };
    const commit = db.transaction((writes: (() => void)[]) => writes.forEach((write) => write()));
    for (const id of ids) commit(patch(id));
    let random = 1;
    const results: number[] = [];
    for (let round = 0; round < 4; round++) {
      const started = process.cpuUsage();
      for (let t = 0; t < TRANSACTIONS; t++) {
        const writes: (() => void)[] = [];
        for (let w = 0; w < GROUP; w++) writes.push(...patch(ids[(random = (random * 48271) % 2147483647) % documents]!));
        commit.immediate(writes);
      }
      const used = process.cpuUsage(started);
      results.push((used.user + used.system) / (TRANSACTIONS * GROUP));
    }
    db.close();
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const documents of counts.length > 0 ? counts : [1, 1000]) {
  const runs = measure(documents);
  process.stdout.write(`${documents} document(s): ${runs.map((us) => us.toFixed(1)).join(", ")} µs of CPU per patch (${GROUP} patches per transaction)\n`);
}
