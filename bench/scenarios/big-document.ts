import { join } from "node:path";
import type { BigDocumentResult, WindowResult } from "../load/big-document.js";
import { beginResult, type BenchContext, type Scenario } from "../lib/context.js";
import { bigDocument as generateBig, generatePostgres, generateSqlite, type GeneratedDocument } from "../lib/history-generator.js";
import { createDatabase, dropDatabase } from "../lib/postgres.js";
import { forkLoad } from "../lib/processes.js";
import { startService, type ServiceUnderTest } from "../lib/service.js";
import { figure, median } from "../lib/stats.js";

const KB = 1024;
const MAX_LATENCY_RATIO = 1.2;
const MAX_BYTES_PER_PATCH = 16 * KB;

function planFor(context: Pick<BenchContext, "quick">) {
  // 20,000 lines of 51 characters plus "\n": 1.04 MB.
  return context.quick
    ? { lines: 2000, lineWidth: 51, small: 100, large: 1000, smallDocuments: 1, largeWindows: 1, windowPatches: 32, spanPatches: 200 }
    : { lines: 20_000, lineWidth: 51, small: 100, large: 10_000, smallDocuments: 3, largeWindows: 3, windowPatches: 128, spanPatches: 1000 };
}

interface PreparedStore {
  storage: { url: string; dbPath?: string };
  small: string[];
  large: string[];
  generateMs: number;
  database?: string;
}

let prepared: Promise<PreparedStore> | undefined;

/**
 * Writes the documents with their history straight into the store (growing 10,000 versions of a
 * 1 MB text through HTTP would take minutes on this machine): `smallDocuments` documents with 100
 * versions and one with 10,000, each version a one-line replace with its ops and checksum.
 */
function generate(context: Pick<BenchContext, "backend" | "quick" | "tmp" | "pgUrl">): Promise<PreparedStore> {
  const plan = planFor(context);
  const started = performance.now();
  const now = Date.now();
  const documents: GeneratedDocument[] = [
    ...Array.from({ length: plan.smallDocuments }, () => generateBig(plan.lines, plan.lineWidth, plan.small, now)),
    generateBig(plan.lines, plan.lineWidth, plan.large, now),
  ];
  const ids = { small: documents.slice(0, plan.smallDocuments).map((d) => d.id), large: [documents[plan.smallDocuments]!.id] };
  if (context.backend === "sqlite") {
    const dbPath = join(context.tmp, "big-document.db");
    return generateSqlite(dbPath, documents).then(() => ({ storage: { url: `sqlite:${dbPath}`, dbPath }, ...ids, generateMs: performance.now() - started }));
  }
  return (async () => {
    const database = await createDatabase(context.pgUrl!);
    try {
      await generatePostgres(database.url, documents);
    } catch (error) {
      await dropDatabase(context.pgUrl!, database.name).catch(() => undefined);
      throw error;
    }
    return { storage: { url: database.url }, ...ids, generateMs: performance.now() - started, database: database.name };
  })();
}

async function drive(
  context: BenchContext,
  service: ServiceUnderTest,
  store: PreparedStore,
  windowPatches: number,
  largeWindows: number,
  spanPatches: number,
): Promise<BigDocumentResult> {
  const plan = planFor(context);
  const timeLimitMs = Math.max(10_000, context.deadline - performance.now() - 5_000);
  const load = forkLoad("big-document", {
    origin: service.origin,
    servicePid: service.pid,
    ...(service.dbPath ? { dbPath: service.dbPath } : {}),
    ...(service.backend === "postgres" ? { postgresUrl: service.storageUrl } : {}),
    // Interleaved: small 1, large 1, small 2, large 2, …; the large document continues from window to window.
    windows: Array.from({ length: Math.max(store.small.length, largeWindows) }, (_, i) => [
      ...(i < store.small.length ? [{ level: plan.small, documentId: store.small[i]! }] : []),
      ...(i < largeWindows ? [{ level: plan.large, documentId: store.large[0]! }] : []),
    ]).flat(),
    windowPatches,
    span: { documentId: store.large[0]!, patches: spanPatches },
    warmupPatches: 16,
    timeLimitMs,
  });
  try {
    return (await load.next<{ type: "result"; data: BigDocumentResult }>("result", timeLimitMs + 10_000)).data;
  } finally {
    load.kill();
    await load.exited();
  }
}

async function withStore<T>(context: BenchContext, work: (store: PreparedStore) => Promise<T>): Promise<T> {
  const store = await (prepared ?? generate(context));
  prepared = undefined;
  try {
    return await work(store);
  } finally {
    if (store.database) await dropDatabase(context.pgUrl!, store.database).catch(() => undefined);
  }
}

export const bigDocument: Scenario = {
  id: "big-document",
  title: "Big document: 1 MB, 20,000 lines, with 100 and with 10,000 versions of history",
  budgetS: { full: 70, quick: 30 },
  prepare: (context) => {
    prepared = generate(context);
    return prepared;
  },
  run: async (context) => {
    const { result, finish } = beginResult(bigDocument.id, bigDocument.title, context.backend);
    const plan = planFor(context);
    const { data, generateMs, backend } = await withStore(context, async (store) => {
      const service = await startService({ build: context.build, backend: context.backend, tmp: context.tmp, storage: store.storage, ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}) });
      try {
        return { data: await drive(context, service, store, plan.windowPatches, plan.largeWindows, plan.spanPatches), generateMs: store.generateMs, backend: service.backend };
      } finally {
        await service.close();
      }
    });
    const small = data.windows.filter((w) => w.level === plan.small);
    const large = data.windows.filter((w) => w.level === plan.large);
    result.method.push(
      `A text of ${data.lines.toLocaleString("en-US")} lines of equal width, ${(data.documentBytes / 1e6).toFixed(2)} MB. The store is written beforehand in the service's schema (its own migrations): ${plan.smallDocuments} document(s) with ${plan.small} versions and one with ${plan.large.toLocaleString("en-US")}, each version a one-line replace with its ops, checksum and receipt, and the snapshot the service's policy would have left (generated in ${(generateMs / 1000).toFixed(1)} s, overlapped with the build). Growing 10,000 versions of a 1 MB text through HTTP would take minutes here.`,
      `The load generator GETs each document (the first request rebuilds the head from the snapshot and the ops after it), sends 16 unmeasured warm-up patches, then measures windows of ${plan.windowPatches} one-line patches (a random line replaced by one of the same width) by one client, one in flight, each against the head; latency from sending to the answer. One window per ${plan.small}-version document and ${plan.largeWindows} on the ${plan.large.toLocaleString("en-US")}-version one (continuing from window to window), the levels interleaved.`,
      `Bytes per patch, the target's figure: ${plan.spanPatches.toLocaleString("en-US")} patches in a row on the ${plan.large.toLocaleString("en-US")}-version document after its windows (versions ${data.span.fromVersion}→${data.span.toVersion}), total bytes / patches, so the service's occasional rewrite of the 1 MB snapshot counts with its real share (${data.span.snapshotRewrites} rewrite(s) seen in the span, sampled every 25 patches). The per-window figures below only show whether a window happened to contain a rewrite.`,
      "Service CPU per accepted patch: the service process's CPU time (run time of all its threads, /proc/<pid>/task/*/schedstat) between the samples before and after a window or the span, divided by its patches (one client, one patch in flight: the service does nothing else).",
      backend === "sqlite"
        ? "Bytes written per patch: (1) write_bytes of the service process (/proc/<pid>/io): what it made the kernel write to storage, i.e. WAL frames plus the checkpoints that copy pages into the database file, each page counted every time it is written; (2) growth of the database file plus the -wal file (the WAL is reused after a checkpoint, so this undercounts writes and rather shows net growth)."
        : "Bytes written per patch: WAL generated by the PostgreSQL cluster (pg_current_wal_lsn; cluster-wide, so other databases' writes on this shared machine count too) and the growth of pg_database_size.",
    );
    const rows = (label: string, windows: WindowResult[]) => {
      result.rows.push({ label: `${label}: patch latency p50`, figure: figure(windows.map((w) => w.p50Ms), "ms") });
      result.rows.push({ label: `${label}: patch latency p99`, figure: figure(windows.map((w) => w.p99Ms), "ms") });
      result.rows.push({ label: `${label}: patch latency mean`, figure: figure(windows.map((w) => w.meanMs), "ms") });
      result.rows.push({ label: `${label}: service CPU per accepted patch`, figure: figure(windows.map((w) => w.cpuPerPatchUs), "µs") });
      if (backend === "sqlite") {
        result.rows.push({ label: `${label}: write_bytes per patch (/proc io)`, figure: figure(windows.map((w) => w.writeBytesPerPatch), "bytes") });
        result.rows.push({ label: `${label}: db + wal file growth per patch`, figure: figure(windows.map((w) => w.fileGrowthPerPatch), "bytes") });
      } else {
        result.rows.push({ label: `${label}: cluster WAL per patch`, figure: figure(windows.map((w) => w.pgWalPerPatch ?? Number.NaN), "bytes") });
        result.rows.push({ label: `${label}: database size growth per patch`, figure: figure(windows.map((w) => w.pgSizeGrowthPerPatch ?? Number.NaN), "bytes") });
      }
    };
    rows(`${plan.small} versions`, small);
    rows(`${plan.large.toLocaleString("en-US")} versions`, large);
    const span = data.span;
    if (backend === "sqlite") {
      result.rows.push({ label: `span of ${span.patches}: write_bytes per patch (/proc io)`, figure: figure([span.writeBytesPerPatch], "bytes") });
      result.rows.push({ label: `span of ${span.patches}: db + wal file growth per patch`, figure: figure([span.fileGrowthPerPatch], "bytes") });
    } else {
      result.rows.push({ label: `span of ${span.patches}: cluster WAL per patch`, figure: figure([span.pgWalPerPatch ?? Number.NaN], "bytes") });
      result.rows.push({ label: `span of ${span.patches}: database size growth per patch`, figure: figure([span.pgSizeGrowthPerPatch ?? Number.NaN], "bytes") });
    }
    result.rows.push({ label: `span of ${span.patches}: patch latency p50`, figure: figure([span.p50Ms], "ms") });
    result.rows.push({ label: `span of ${span.patches}: service CPU per accepted patch`, figure: figure([span.cpuPerPatchUs], "µs") });
    result.notes.push(`Windows covered versions ${data.windows.map((w) => `${w.fromVersion}→${w.toVersion}`).join(", ")}; statuses ${JSON.stringify(data.statuses)}.`);
    const smallP50 = median(small.map((w) => w.p50Ms));
    const largeP50 = median(large.map((w) => w.p50Ms));
    result.targets.push({
      id: "big-latency",
      label: `big document: patch latency (p50) with ${plan.large.toLocaleString("en-US")} versions vs ${plan.small}`,
      measured: `${largeP50.toFixed(2)} / ${smallP50.toFixed(2)} ms`,
      value: largeP50 / smallP50,
      threshold: `≤ ${MAX_LATENCY_RATIO}`,
      met: largeP50 / smallP50 <= MAX_LATENCY_RATIO,
    });
    const bytes = backend === "sqlite" ? span.writeBytesPerPatch : (span.pgWalPerPatch ?? Number.NaN);
    result.targets.push({
      id: "big-bytes",
      label: `big document: bytes written to the store per one-line patch (${backend === "sqlite" ? "write_bytes of the service process" : "cluster WAL"}, average over ${span.patches.toLocaleString("en-US")} patches in a row)`,
      measured: `${(bytes / KB).toFixed(1)} KB (${span.snapshotRewrites} snapshot rewrite(s) in the span)`,
      value: bytes / MAX_BYTES_PER_PATCH,
      threshold: "< 1.0 (of 16 KB)",
      met: bytes < MAX_BYTES_PER_PATCH,
    });
    return finish();
  },
  profile: async (context, profileDir) => {
    const plan = planFor(context);
    await withStore(context, async (store) => {
      const service = await startService({ build: context.build, backend: context.backend, tmp: context.tmp, storage: store.storage, profileDir, ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}) });
      try {
        await drive(context, service, store, plan.windowPatches, 1, 0);
      } finally {
        await service.close();
      }
    });
    return { command: "one big-document pass (one window per document, on a freshly generated store) with the service under --cpu-prof" };
  },
};
