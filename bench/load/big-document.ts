/**
 * Big document: documents whose history the benchmark wrote into the store beforehand are fetched
 * (GET, the full text) and then patched by one client, one patch in flight, for measurement
 * windows: latency of each one-line patch, and the bytes the service wrote to the store per patch.
 *
 * Bytes per patch, two ways: (1) /proc/<service pid>/io write_bytes, what the service process made
 * the kernel write to storage (WAL frames, checkpoints into the database file); (2) the growth of
 * the SQLite files (database + -wal) on disk. On PostgreSQL: the WAL the cluster generated
 * (pg_current_wal_lsn) and the growth of the database's size.
 */
import { statSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { runChild, wallNow } from "../lib/child.js";
import { API, createPool, requestJson } from "../lib/http.js";
import { fillerText } from "../lib/history-generator.js";
import { readCpuMs, readIo } from "../lib/proc.js";
import { DocState, afterAccepted, replaceLine } from "../lib/replica.js";
import { percentile } from "../lib/stats.js";

interface Config {
  origin: string;
  servicePid: number;
  dbPath?: string;
  postgresUrl?: string;
  /** The windows in the order to measure them (levels interleaved, so that neither gets the warmer machine); a document named again continues where it stopped. */
  windows: { level: number; documentId: string }[];
  windowPatches: number;
  /** After the windows: this many patches in a row on one document, for the average bytes per patch (snapshot rewrites included). */
  span: { documentId: string; patches: number };
  /** Unmeasured patches on each document before its first window. */
  warmupPatches: number;
  timeLimitMs: number;
}

export interface WindowResult {
  level: number;
  fromVersion: number;
  toVersion: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  writeBytesPerPatch: number;
  fileGrowthPerPatch: number;
  wcharPerPatch: number;
  /** The service's CPU time (all threads) over the window's patches, per patch, in µs. */
  cpuPerPatchUs: number;
  pgWalPerPatch?: number;
  pgSizeGrowthPerPatch?: number;
}

export interface SpanResult {
  patches: number;
  fromVersion: number;
  toVersion: number;
  /** Times the service rewrote the document's snapshot during the span (sampled every 25 patches). */
  snapshotRewrites: number;
  writeBytesPerPatch: number;
  fileGrowthPerPatch: number;
  cpuPerPatchUs: number;
  pgWalPerPatch?: number;
  pgSizeGrowthPerPatch?: number;
  p50Ms: number;
}

export interface BigDocumentResult {
  windows: WindowResult[];
  span: SpanResult;
  documentBytes: number;
  lines: number;
  statuses: Record<string, number>;
}

interface PatchAnswer {
  version: number;
  opsSinceBase: { op: "replace" | "insert" | "delete"; index: number; count?: number; lines?: string[] }[];
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

runChild<Config, BigDocumentResult>(async (config) => {
  const hardEnd = wallNow() + config.timeLimitMs;
  const pool = createPool(config.origin, 2);
  const pgClient = config.postgresUrl ? new pg.Client({ connectionString: config.postgresUrl }) : undefined;
  await pgClient?.connect();
  const statuses: Record<string, number> = {};
  const clientId = `big-${process.pid}`;
  let seq = 0;
  let documentBytes = 0;
  let lines = 0;

  /** A line of the same width as the one it replaces, so the text keeps its size. */
  const patch = async (documentId: string, base: DocState, index: number): Promise<DocState> => {
    const mine = ++seq;
    const width = base.lines[index]!.length;
    const op = replaceLine(index, (`edited by the benchmark, seq ${mine} ` + fillerText(mine * 7 + index, width)).slice(0, width));
    const answer = await requestJson<PatchAnswer>(pool, "PATCH", `${API}/documents/${documentId}/content`, {
      baseVersion: base.version,
      checksum: base.checksum,
      clientId,
      seq: mine,
      ops: op.wire,
    });
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (answer.status !== 200 || !answer.body) throw new Error(`PATCH answered ${answer.status}`);
    return afterAccepted(base, op.normalized, answer.body.version, answer.body.opsSinceBase);
  };

  const sample = async () => {
    const io = readIo(config.servicePid);
    // The service works only on this client's patches (one in flight): its CPU between two samples is theirs.
    const cpuMs = readCpuMs(config.servicePid);
    const files = config.dbPath ? fileSize(config.dbPath) + fileSize(`${config.dbPath}-wal`) : 0;
    let wal: number | undefined;
    let size: number | undefined;
    if (pgClient) {
      const { rows } = await pgClient.query<{ lsn: string; size: string }>("SELECT pg_current_wal_lsn()::text AS lsn, pg_database_size(current_database())::text AS size");
      const [high, low] = rows[0]!.lsn.split("/").map((part) => Number.parseInt(part, 16));
      wal = high! * 2 ** 32 + low!;
      size = Number(rows[0]!.size);
    }
    return { io, cpuMs, files, wal, size };
  };

  const windows: WindowResult[] = [];
  const heads = new Map<string, DocState>();
  for (const planned of config.windows) {
    if (wallNow() > hardEnd) throw new Error("time limit reached");
    const { documentId } = planned;
    let head = heads.get(documentId);
    if (!head) {
      const fetched = await requestJson<{ version: number; content: string }>(pool, "GET", `${API}/documents/${documentId}`);
      if (fetched.status !== 200 || !fetched.body) throw new Error(`GET of a generated document answered ${fetched.status}`);
      head = DocState.fromText(fetched.body.version, fetched.body.content);
      documentBytes = Buffer.byteLength(fetched.body.content);
      lines = head.lines.length;
      // Warm-up, not measured: the service's patch path gets compiled and this document's head cached.
      for (let k = 0; k < config.warmupPatches; k++) head = await patch(documentId, head, Math.floor(Math.random() * head.lines.length));
    }
    const before = await sample();
    const fromVersion = head.version;
    const latencies: number[] = [];
    for (let k = 0; k < config.windowPatches && wallNow() < hardEnd; k++) {
      const index = Math.floor(Math.random() * head.lines.length);
      const t0 = wallNow();
      head = await patch(documentId, head, index);
      latencies.push(wallNow() - t0);
    }
    heads.set(documentId, head);
    const after = await sample();
    const count = latencies.length;
    windows.push({
      level: planned.level,
      fromVersion,
      toVersion: head.version,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      meanMs: latencies.reduce((sum, value) => sum + value, 0) / count,
      writeBytesPerPatch: (after.io.writeBytes - before.io.writeBytes) / count,
      fileGrowthPerPatch: (after.files - before.files) / count,
      wcharPerPatch: (after.io.wchar - before.io.wchar) / count,
      cpuPerPatchUs: ((after.cpuMs - before.cpuMs) * 1000) / count,
      ...(after.wal !== undefined && before.wal !== undefined ? { pgWalPerPatch: (after.wal - before.wal) / count } : {}),
      ...(after.size !== undefined && before.size !== undefined ? { pgSizeGrowthPerPatch: (after.size - before.size) / count } : {}),
    });
  }
  // The span: the average over many consecutive patches, so the occasional snapshot rewrite counts
  // with its real share whatever the service's snapshot interval is.
  const reader = config.dbPath ? new BetterSqlite3(config.dbPath, { readonly: true, fileMustExist: true }) : undefined;
  const snapshotVersion = async (documentId: string): Promise<number> => {
    if (reader) return (reader.prepare("SELECT version FROM snapshots WHERE document_id = ?").get(documentId) as { version: number } | undefined)?.version ?? 0;
    if (pgClient) return Number((await pgClient.query<{ version: string }>("SELECT version::text FROM snapshots WHERE document_id = $1", [documentId])).rows[0]?.version ?? 0);
    return 0;
  };
  const spanId = config.span.documentId;
  let head = heads.get(spanId);
  if (!head) throw new Error("the span's document had no window");
  const before = await sample();
  const fromVersion = head.version;
  let lastSnapshot = await snapshotVersion(spanId);
  let snapshotRewrites = 0;
  const latencies: number[] = [];
  for (let k = 0; k < config.span.patches && wallNow() < hardEnd; k++) {
    const t0 = wallNow();
    head = await patch(spanId, head, Math.floor(Math.random() * head.lines.length));
    latencies.push(wallNow() - t0);
    if (k % 25 === 24 || k === config.span.patches - 1) {
      const current = await snapshotVersion(spanId);
      if (current !== lastSnapshot) snapshotRewrites++;
      lastSnapshot = current;
    }
  }
  const after = await sample();
  const count = latencies.length;
  reader?.close();
  const span: SpanResult = {
    patches: count,
    fromVersion,
    toVersion: head.version,
    snapshotRewrites,
    writeBytesPerPatch: (after.io.writeBytes - before.io.writeBytes) / count,
    fileGrowthPerPatch: (after.files - before.files) / count,
    cpuPerPatchUs: ((after.cpuMs - before.cpuMs) * 1000) / count,
    ...(after.wal !== undefined && before.wal !== undefined ? { pgWalPerPatch: (after.wal - before.wal) / count } : {}),
    ...(after.size !== undefined && before.size !== undefined ? { pgSizeGrowthPerPatch: (after.size - before.size) / count } : {}),
    p50Ms: percentile(latencies, 50),
  };
  await pgClient?.end();
  await pool.close();
  return { windows, span, documentBytes, lines, statuses };
});
