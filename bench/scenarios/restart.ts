import { copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beginResult, checkDeadline, type BenchContext, type Scenario } from "../lib/context.js";
import { ageSqlite, agePostgres, generatePostgres, generateSqlite, smallDocuments } from "../lib/history-generator.js";
import { API, createPool, requestJson } from "../lib/http.js";
import { createDatabase, dropDatabase } from "../lib/postgres.js";
import { startService } from "../lib/service.js";
import { figure } from "../lib/stats.js";

const DAY_MS = 86_400_000;

interface StartTimes {
  listeningMs: number;
  infoMs: number;
  firstDocumentMs: number;
}

/** Starts the service on existing storage and times spawn → "listening" log line → first 200 of /info → first GET of a document. */
async function timeStart(context: BenchContext, storage: { url: string; dbPath?: string }, documentId: string | undefined, graceMs: number): Promise<StartTimes> {
  const started = performance.now();
  const service = await startService({
    build: context.build,
    backend: context.backend,
    tmp: context.tmp,
    storage,
    env: { LOG_LEVEL: "info" },
    readiness: "log",
    timeoutMs: 180_000,
  });
  try {
    let firstDocumentMs = Number.NaN;
    if (documentId) {
      const pool = createPool(service.origin, 1);
      const answer = await requestJson(pool, "GET", `${API}/documents/${documentId}`);
      firstDocumentMs = performance.now() - started;
      await pool.close();
      if (answer.status !== 200) throw new Error(`GET of a generated document answered ${answer.status}`);
    }
    return { listeningMs: service.listeningMs, infoMs: service.readyMs, firstDocumentMs };
  } finally {
    // With aged history the start-up compaction may still run; waiting for it is not what is measured.
    await service.stop(graceMs);
  }
}

async function someDocumentId(storage: { url: string; dbPath?: string }, offset: number): Promise<string> {
  if (storage.dbPath) {
    const { default: BetterSqlite3 } = await import("better-sqlite3");
    const db = new BetterSqlite3(storage.dbPath, { readonly: true });
    try {
      return (db.prepare("SELECT id FROM documents ORDER BY id LIMIT 1 OFFSET ?").get(offset) as { id: string }).id;
    } finally {
      db.close();
    }
  }
  const pg = await import("pg");
  const client = new pg.default.Client({ connectionString: storage.url });
  await client.connect();
  try {
    return (await client.query<{ id: string }>("SELECT id FROM documents ORDER BY id LIMIT 1 OFFSET $1", [offset])).rows[0]!.id;
  } finally {
    await client.end();
  }
}

interface PreparedStore {
  storage: { url: string; dbPath?: string };
  /** SQLite: an aged copy made up front (PostgreSQL ages the one database after the recent starts). */
  aged?: { url: string; dbPath: string };
  documents: number;
  versionsPerDocument: number;
  generateMs: number;
  /** A PostgreSQL database to drop afterwards. */
  database?: string;
  sizeNote?: string;
}

let prepared: Promise<PreparedStore> | undefined;

/** Generates the store (overlapping the build, which runs in a child process). */
function generate(context: Pick<BenchContext, "backend" | "quick" | "tmp" | "pgUrl">): Promise<PreparedStore> {
  const documents = context.quick ? 1000 : 10_000;
  const versionsPerDocument = 100;
  const started = performance.now();
  const now = Date.now();
  if (context.backend === "sqlite") {
    const dbPath = join(context.tmp, "restart.db");
    const agedPath = join(context.tmp, "restart-aged.db");
    return generateSqlite(dbPath, smallDocuments(documents, versionsPerDocument, now)).then(() => {
      copyFileSync(dbPath, agedPath);
      ageSqlite(agedPath, 2 * DAY_MS);
      return {
        storage: { url: `sqlite:${dbPath}`, dbPath },
        aged: { url: `sqlite:${agedPath}`, dbPath: agedPath },
        documents,
        versionsPerDocument,
        generateMs: performance.now() - started,
        sizeNote: `Generated SQLite file (created by the service's own SqliteStore.open, rows inserted document by document): ${(statSync(dbPath).size / 1024 / 1024).toFixed(0)} MiB, about ${(statSync(dbPath).size / (documents * versionsPerDocument)).toFixed(0)} bytes per version with its receipt.`,
      };
    });
  }
  return (async () => {
    const database = await createDatabase(context.pgUrl!);
    try {
      await generatePostgres(database.url, smallDocuments(documents, versionsPerDocument, now));
    } catch (error) {
      await dropDatabase(context.pgUrl!, database.name).catch(() => undefined);
      throw error;
    }
    return { storage: { url: database.url }, documents, versionsPerDocument, generateMs: performance.now() - started, database: database.name };
  })();
}

export const restart: Scenario = {
  id: "restart",
  title: "Restart cost: start-up with 10,000 documents and 1,000,000 versions",
  budgetS: { full: 90, quick: 30 },
  prepare: (context) => {
    prepared = generate(context);
    return prepared;
  },
  run: async (context) => {
    const { result, finish } = beginResult(restart.id, restart.title, context.backend);
    const runs = context.quick ? 1 : 3;
    const agedRuns = 1;
    const store = await (prepared ?? generate(context));
    prepared = undefined;
    const { storage, documents, versionsPerDocument, generateMs } = store;
    try {
      if (store.sizeNote) result.notes.push(store.sizeNote);
      context.log(`store with ${documents} documents × ${versionsPerDocument} versions generated in ${(generateMs / 1000).toFixed(1)} s`);
      const documentId = await someDocumentId(storage, Math.floor(documents / 2));

      const recent: StartTimes[] = [];
      for (let run = 0; run < runs; run++) {
        checkDeadline(context, `restart run ${run + 1}`);
        recent.push(await timeStart(context, storage, documentId, 20_000));
        context.log(`recent history, start ${run + 1}: listening after ${recent[run]!.listeningMs.toFixed(0)} ms, /info 200 after ${recent[run]!.infoMs.toFixed(0)} ms`);
      }

      // The same store with every version older than the retention period: the start-up compaction has work.
      const old: StartTimes[] = [];
      for (let run = 0; run < agedRuns; run++) {
        checkDeadline(context, "restart with aged history");
        let aged: { url: string; dbPath?: string };
        if (store.aged) {
          aged = store.aged;
        } else {
          await agePostgres(storage.url, 2 * DAY_MS);
          aged = storage;
        }
        old.push(await timeStart(context, aged, documentId, 2_000));
        context.log(`aged history: listening after ${old[run]!.listeningMs.toFixed(0)} ms, /info 200 after ${old[run]!.infoMs.toFixed(0)} ms`);
      }

      result.method.push(
        `A store generated directly in the service's schema (its own migrations): ${documents.toLocaleString("en-US")} documents × ${versionsPerDocument} versions = ${(documents * versionsPerDocument).toLocaleString("en-US")} versions, each with consistent ops and checksum, a receipt per patch, and a snapshot of the head; 10-line texts; SQLite files are created by the service's own SqliteStore.open (its page size and pragmas). Generated in ${(generateMs / 1000).toFixed(1)} s (not part of the figures; overlapped with the build) and flushed to disk (fsync; CHECKPOINT on PostgreSQL) before the first start, so the page cache is warm and no write-back competes.`,
        `Timed from spawning the service (LOG_LEVEL=info, for the "listening on" line) to that line, to the first 200 of GET /api/v1/info, and to the first 200 of GET of one document (rebuilds its text from the snapshot and the ops after it). ${runs} start(s), each stopped with SIGTERM.`,
        `"Recent": every version younger than the retention period (1 day), so the compaction that runs at start finds nothing. "Aged": the same store with every time moved 2 days back, so the start-up compaction has every document to work on (${agedRuns} start on a copy made during the set-up; the compaction may go on after the service answers, which is not timed).`,
      );
      result.rows.push({ label: "recent history: spawn → listening", figure: figure(recent.map((r) => r.listeningMs), "ms") });
      result.rows.push({ label: "recent history: spawn → first 200 of /info", figure: figure(recent.map((r) => r.infoMs), "ms") });
      result.rows.push({ label: "recent history: spawn → first document GET", figure: figure(recent.map((r) => r.firstDocumentMs), "ms") });
      result.rows.push({ label: "aged history: spawn → listening", figure: figure(old.map((r) => r.listeningMs), "ms") });
      result.rows.push({ label: "aged history: spawn → first 200 of /info", figure: figure(old.map((r) => r.infoMs), "ms") });
      result.rows.push({ label: "aged history: spawn → first document GET", figure: figure(old.map((r) => r.firstDocumentMs), "ms") });
    } finally {
      if (store.database) await dropDatabase(context.pgUrl!, store.database).catch(() => undefined);
    }
    return finish();
  },
};
