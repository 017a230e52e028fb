import { createHash, randomUUID } from "node:crypto";
import { closeSync, fsyncSync, openSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import { migrate as migratePostgres } from "../../src/storage/postgres/postgres-migrations.js";

/**
 * Writes a store as the service would have left it after `documents` documents each received
 * `versionsPerDocument - 1` one-line patches: the documents' heads, every version (ops and the
 * checksum of its text, all consistent), a receipt per patch, and a snapshot where the service's
 * policy would have written the last one (every 32 versions for small texts).
 */

const LINES = 10;

interface VersionRow {
  version: number;
  changeType: "CREATED" | "UPDATED";
  milestone: boolean;
  createdAt: number;
  clientId: string | null;
  ops: string;
  checksum: string;
  text: string | null;
}

/** One document's rows as the service would have written them. */
export interface GeneratedDocument {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  versions: VersionRow[];
  head: { version: number; checksum: string };
  snapshot: { version: number; text: string };
  receipts: { clientId: string; seq: number; requestHash: string; version: number; createdAt: number }[];
}

/**
 * `width` characters of word-like filler from a seeded generator: text that compresses about as
 * badly as prose, so PostgreSQL's TOAST compression cannot make snapshots look free.
 */
export function fillerText(seed: number, width: number): string {
  let state = (seed * 2654435761) >>> 0 || 1;
  const letters = "etaoinshrdlucmfwypvbgkqjxz";
  let out = "";
  while (out.length < width) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    // Skewed towards frequent letters; a space now and then.
    const r = state % 100;
    out += r < 16 ? " " : letters[Math.floor(((r - 16) / 84) ** 2 * letters.length)]!;
  }
  return out.slice(0, width);
}

const sha = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/**
 * A history of one-line replaces on a text of fixed-width lines, kept in one Buffer and changed in
 * place, so each version's checksum costs one hash of the text and nothing else.
 */
function generateDocument(options: {
  name: string;
  lines: number;
  lineWidth: number;
  versions: number;
  newestAt: number;
  clients: number;
  lineOf: (version: number) => number;
}): GeneratedDocument {
  const { lines, lineWidth, versions: count, newestAt } = options;
  const id = randomUUID();
  const title = options.name;
  const lineText = (index: number, revision: number) => {
    const head = `${options.name} line ${index} revision ${revision} `;
    return (head + fillerText(index * 100_003 + revision, lineWidth)).slice(0, lineWidth);
  };
  const text = Buffer.from(Array.from({ length: lines }, (_, i) => lineText(i, 0)).join("\n"), "utf8");
  const firstAt = newestAt - (count - 1) * 1000;
  const initial = text.toString("utf8");
  const versions: VersionRow[] = [
    {
      version: 1,
      changeType: "CREATED",
      milestone: true,
      createdAt: firstAt,
      clientId: null,
      ops: JSON.stringify([{ index: 0, count: 1, lines: initial.split("\n") }]),
      checksum: `sha256:${sha(text)}`,
      text: initial,
    },
  ];
  const receipts: GeneratedDocument["receipts"] = [];
  for (let v = 2; v <= count; v++) {
    const j = options.lineOf(v);
    const line = lineText(j, v);
    text.write(line, j * (lineWidth + 1), "utf8");
    const createdAt = firstAt + (v - 1) * 1000;
    const clientId = `generated-${v % options.clients}`;
    versions.push({
      version: v,
      changeType: "UPDATED",
      milestone: false,
      createdAt,
      clientId,
      ops: JSON.stringify([{ index: j, count: 1, lines: [line] }]),
      checksum: `sha256:${sha(text)}`,
      text: null,
    });
    receipts.push({ clientId, seq: v, requestHash: sha(`${id}:${v}`), version: v, createdAt });
  }
  const last = versions[versions.length - 1]!;
  const snapshot = { version: last.version, text: text.toString("utf8") };
  return { id, title, createdAt: firstAt, updatedAt: last.createdAt, versions, head: { version: last.version, checksum: last.checksum }, snapshot, receipts };
}

/** `documents` small documents (10 lines) with `versionsPerDocument` versions each, the newest at `newestAt`. */
export function* smallDocuments(documents: number, versionsPerDocument: number, newestAt: number): Generator<GeneratedDocument> {
  for (let d = 0; d < documents; d++) {
    yield generateDocument({
      name: `document ${d}`,
      lines: LINES,
      lineWidth: 40,
      versions: versionsPerDocument,
      newestAt: newestAt - d,
      clients: 50,
      lineOf: (v) => (v - 2) % LINES,
    });
  }
}

/** One large document of `lines` fixed-width lines with `versions` versions, each replacing a pseudo-random line. */
export function bigDocument(lines: number, lineWidth: number, versions: number, newestAt: number): GeneratedDocument {
  return generateDocument({ name: "big", lines, lineWidth, versions, newestAt, clients: 8, lineOf: (v) => (v * 7919) % lines });
}

/**
 * Writes documents into a new SQLite file. The file is created by the service's own
 * SqliteStore.open, so it has the service's schema and file settings (page size, WAL); the rows
 * are then written in bulk without fsyncs.
 */
export async function generateSqlite(path: string, documents: Iterable<GeneratedDocument>): Promise<void> {
  await SqliteStore.open(path).close();
  const db = new BetterSqlite3(path);
  try {
    db.pragma("synchronous = OFF");
    const insertDocument = db.prepare("INSERT INTO documents (id, title, version, deleted, created_at, updated_at, checksum) VALUES (?, ?, ?, 0, ?, ?, ?)");
    const insertVersion = db.prepare(
      "INSERT INTO versions (document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum, text) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)",
    );
    const insertSnapshot = db.prepare("INSERT INTO snapshots (document_id, version, text) VALUES (?, ?, ?)");
    const insertReceipt = db.prepare(
      "INSERT INTO patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at) VALUES (?, ?, ?, ?, ?, '[]', ?)",
    );
    const writeBatch = db.transaction((batch: GeneratedDocument[]) => {
      for (const doc of batch) {
        insertDocument.run(doc.id, doc.title, doc.head.version, doc.createdAt, doc.updatedAt, doc.head.checksum);
        for (const v of doc.versions) insertVersion.run(doc.id, v.version, v.changeType, v.milestone ? 1 : 0, v.createdAt, v.clientId, doc.title, v.ops, v.checksum, v.text);
        insertSnapshot.run(doc.id, doc.snapshot.version, doc.snapshot.text);
        for (const r of doc.receipts) insertReceipt.run(doc.id, r.clientId, r.seq, r.requestHash, r.version, r.createdAt);
      }
    });
    let batch: GeneratedDocument[] = [];
    for (const doc of documents) {
      batch.push(doc);
      if (batch.length === 500) {
        writeBatch(batch);
        batch = [];
      }
    }
    if (batch.length > 0) writeBatch(batch);
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  flushToDisk(path);
}

/** fsyncs a file, so that its write-back does not compete with the measurements that follow. */
export function flushToDisk(path: string): void {
  const fd = openSync(path, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Moves every time in a generated SQLite store `byMs` into the past (history older than the retention period). */
export function ageSqlite(path: string, byMs: number): void {
  const db = new BetterSqlite3(path);
  try {
    db.pragma("synchronous = OFF");
    db.transaction(() => {
      db.prepare("UPDATE versions SET created_at = created_at - ?").run(byMs);
      db.prepare("UPDATE patch_receipts SET created_at = created_at - ?").run(byMs);
      db.prepare("UPDATE documents SET created_at = created_at - ?, updated_at = updated_at - ?").run(byMs, byMs);
    })();
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  flushToDisk(path);
}

/** Writes documents into a fresh PostgreSQL database in the service's schema, in batches through unnest(). */
export async function generatePostgres(url: string, documents: Iterable<GeneratedDocument>): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1, statement_timeout: 600_000 });
  try {
    await migratePostgres(pool, undefined);
    const client = await pool.connect();
    try {
      let batch: GeneratedDocument[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const docs = batch;
        batch = [];
        const versions = docs.flatMap((doc) => doc.versions.map((v) => ({ doc, v })));
        const receipts = docs.flatMap((doc) => doc.receipts.map((r) => ({ doc, r })));
        await client.query("BEGIN");
        await client.query(
          `INSERT INTO documents (id, title, version, deleted, created_at, updated_at, checksum)
           SELECT id, convert_to(title, 'UTF8'), version, false, created_at, updated_at, checksum
             FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[]) AS t(id, title, version, created_at, updated_at, checksum)`,
          [docs.map((d) => d.id), docs.map((d) => d.title), docs.map((d) => d.head.version), docs.map((d) => d.createdAt), docs.map((d) => d.updatedAt), docs.map((d) => d.head.checksum)],
        );
        await client.query(
          `INSERT INTO versions (document_id, version, change_type, milestone, created_at, client_id, display_name, title, ops, checksum, text)
           SELECT id, version, change_type, milestone, created_at, convert_to(client_id, 'UTF8'), NULL, convert_to(title, 'UTF8'), ops, checksum, convert_to(text, 'UTF8')
             FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::boolean[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
               AS t(id, version, change_type, milestone, created_at, client_id, title, ops, checksum, text)`,
          [
            versions.map((x) => x.doc.id),
            versions.map((x) => x.v.version),
            versions.map((x) => x.v.changeType),
            versions.map((x) => x.v.milestone),
            versions.map((x) => x.v.createdAt),
            versions.map((x) => x.v.clientId),
            versions.map((x) => x.doc.title),
            versions.map((x) => x.v.ops),
            versions.map((x) => x.v.checksum),
            versions.map((x) => x.v.text),
          ],
        );
        await client.query(
          `INSERT INTO snapshots (document_id, version, text)
           SELECT id, version, convert_to(text, 'UTF8') FROM unnest($1::uuid[], $2::bigint[], $3::text[]) AS t(id, version, text)`,
          [docs.map((d) => d.id), docs.map((d) => d.snapshot.version), docs.map((d) => d.snapshot.text)],
        );
        await client.query(
          `INSERT INTO patch_receipts (document_id, client_id, seq, request_hash, version, ops_since_base, created_at)
           SELECT id, convert_to(client_id, 'UTF8'), seq, request_hash, version, '[]', created_at
             FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[]) AS t(id, client_id, seq, request_hash, version, created_at)`,
          [receipts.map((x) => x.doc.id), receipts.map((x) => x.r.clientId), receipts.map((x) => x.r.seq), receipts.map((x) => x.r.requestHash), receipts.map((x) => x.r.version), receipts.map((x) => x.r.createdAt)],
        );
        await client.query("COMMIT");
      };
      for (const doc of documents) {
        batch.push(doc);
        if (batch.length === 200) await flush();
      }
      await flush();
      await client.query("ANALYZE");
      // Written out now, so that the background writer does not compete with the measurements.
      await client.query("CHECKPOINT");
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

/** Moves every time in a generated PostgreSQL store `byMs` into the past. */
export async function agePostgres(url: string, byMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, statement_timeout: 600_000 });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("UPDATE versions SET created_at = created_at - $1", [byMs]);
    await client.query("UPDATE patch_receipts SET created_at = created_at - $1", [byMs]);
    await client.query("UPDATE documents SET created_at = created_at - $1, updated_at = updated_at - $1", [byMs]);
    await client.query("COMMIT");
    await client.query("VACUUM ANALYZE");
    await client.query("CHECKPOINT");
  } finally {
    await client.end();
  }
}
