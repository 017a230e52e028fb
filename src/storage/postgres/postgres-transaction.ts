import type pg from "pg";
import type { StagedWrites } from "../staged-writes.js";
import { COMMIT_CHANNEL } from "./commit-notifier.js";
import {
  DOCUMENT_COLUMNS,
  RECEIPT_COLUMNS,
  VERSION_COLUMNS,
  StatementParams,
  documentParams,
  encodeText,
  receiptParams,
  versionParams,
} from "./postgres-rows.js";
import type { Queryable } from "./postgres-reads.js";

// Rows per INSERT and bind parameters per statement, well below PostgreSQL's 65,535 (a version
// row takes 11, a receipt 9).
const ROWS_PER_INSERT = 1000;
const PARAMS_PER_STATEMENT = 30_000;

/** One data-modifying statement of the flush, written as the body of a WITH item. */
interface WritePart {
  /** Its bind parameters, for packing parts into statements. */
  size: number;
  /** A milestone mark of this document: the part returns a row if the version exists, to be counted. */
  marks?: StagedWrites;
  sql: (params: StatementParams) => string;
}

/**
 * Runs `body` in a transaction on a pooled client: COMMIT when it returns, ROLLBACK when it
 * throws. The one place that begins and ends PostgreSQL transactions (writes, compaction, migrations).
 *
 * `opening` sends its statements right behind the `BEGIN`, without waiting for its answer: the pool
 * pipelines (postgres-store.ts), so they travel in one round trip, and the server still runs them one
 * after the other. `body` gets what `opening` returned, once the `BEGIN` and it have succeeded.
 */
export async function inTransaction<T, O = undefined>(
  pool: pg.Pool,
  body: (client: pg.PoolClient, opened: O) => Promise<T>,
  opening?: (client: pg.PoolClient) => Promise<O>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // The pool listens for a client's errors only while it is idle: a connection lost during the
  // transaction (the server restarted, the backend was terminated) would otherwise be an unhandled
  // 'error' event, which ends the process. The query under way fails with it too, and the client is
  // then discarded below.
  const lost = (error: Error) => {
    broken ??= error;
  };
  client.on("error", lost);
  try {
    const [, opened] = await Promise.all([client.query("BEGIN"), opening?.(client)]);
    const result = await body(client, opened as O);
    const committed = await client.query("COMMIT");
    // A COMMIT of a transaction that an earlier error aborted (a failed statement the body caught)
    // answers ROLLBACK, not an error: nothing was written, and the caller must not hear otherwise.
    if (committed.command === "ROLLBACK") {
      throw new Error("the transaction was aborted by an earlier error of one of its statements; nothing was committed");
    }
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.off("error", lost);
    // A client whose connection was lost or whose ROLLBACK failed is in an unknown state: the pool discards it.
    client.release(broken);
  }
}

/** One document's staged writes and the commit notice of its new head. */
export interface Flush {
  staged: StagedWrites;
  announce: (headVersion: number) => string;
}

/**
 * Writes what `flushes` (distinct documents, each row locked by the open transaction of `client`)
 * staged, every value a bind parameter: one statement of data-modifying WITH items in the usual
 * case (more only past {@link PARAMS_PER_STATEMENT}), since every round trip is time the documents
 * stay locked. The first statement also reads the stored head of each document that appends
 * versions, as it was before this flush (a statement never sees its own WITH items), for
 * StagedWrites.checkFollows; the milestone marks that met a version are counted for
 * StagedWrites.checkMarked. A document that appended versions gets its commit notice in the last
 * statement: PostgreSQL delivers it only if the transaction commits, and in commit order. A
 * snapshot, a receipt or a milestone mark alone gives a feed nothing new.
 */
export async function flushStaged(client: Queryable, flushes: readonly Flush[]): Promise<void> {
  for (const { staged } of flushes) staged.finish();
  const writing = flushes.filter(({ staged }) => !staged.empty);
  if (writing.length === 0) return;
  const appending = writing.map(({ staged }) => staged).filter((staged) => staged.versions.length > 0);
  const notices = writing.flatMap(({ staged, announce }) => (staged.headVersion === undefined ? [] : [announce(staged.headVersion)]));
  const statements = packStatements(parts(writing.map(({ staged }) => staged)));
  const marked = new Map<StagedWrites, number>();
  for (const [index, parts] of statements.entries()) {
    const params = new StatementParams();
    const items = parts.map((part, item) => `w${item} AS (${part.sql(params)})`);
    const columns = parts.flatMap((part, item) => (part.marks ? [`(SELECT count(*) FROM w${item}) AS marked_${item}`] : []));
    if (index === 0) {
      columns.push(
        ...appending.map((staged, n) => `(SELECT coalesce(max(version), 0) FROM versions WHERE document_id = ${params.add(staged.documentId)}) AS head_${n}`),
      );
    }
    if (index === statements.length - 1 && notices.length > 0) {
      const channel = params.add(COMMIT_CHANNEL);
      columns.push(...notices.map((notice, n) => `pg_notify(${channel}, ${params.add(notice)}) AS notified_${n}`));
    }
    const { rows } = await client.query<Record<string, number>>(`WITH ${items.join(", ")} SELECT ${columns.join(", ") || "0 AS none"}`, params.values);
    const row = rows[0]!;
    for (const [item, part] of parts.entries()) {
      if (part.marks) marked.set(part.marks, (marked.get(part.marks) ?? 0) + row[`marked_${item}`]!);
    }
    if (index === 0) appending.forEach((staged, n) => staged.checkFollows(row[`head_${n}`]!));
  }
  for (const { staged } of writing) staged.checkMarked(marked.get(staged) ?? 0);
}

/** The writes of `all` (distinct documents), each table's rows in as few INSERTs as {@link ROWS_PER_INSERT} allows. */
function parts(all: readonly StagedWrites[]): WritePart[] {
  const parts: WritePart[] = [];
  const documents = all.flatMap((staged) => (staged.document ? [documentParams(staged.document)] : []));
  for (const rows of chunks(documents)) {
    parts.push({
      size: 7 * rows.length,
      sql: (params) => `INSERT INTO documents (${DOCUMENT_COLUMNS}) VALUES ${params.rows(rows)}
         ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, version = EXCLUDED.version,
           deleted = EXCLUDED.deleted, created_at = EXCLUDED.created_at,
           updated_at = EXCLUDED.updated_at, checksum = EXCLUDED.checksum`,
    });
  }
  for (const rows of chunks(all.flatMap((staged) => staged.versions.map(versionParams)))) {
    parts.push({ size: 11 * rows.length, sql: (params) => `INSERT INTO versions (${VERSION_COLUMNS}) VALUES ${params.rows(rows)}` });
  }
  for (const staged of all) {
    for (const [version, text] of staged.marks) {
      parts.push({
        size: 3,
        marks: staged,
        sql: (params) =>
          `UPDATE versions SET milestone = true, text = ${params.add(encodeText(text))}
            WHERE document_id = ${params.add(staged.documentId)} AND version = ${params.add(version)} RETURNING version`,
      });
    }
  }
  const snapshots = all.flatMap((staged) => (staged.snapshot ? [[staged.documentId, staged.snapshot.version, encodeText(staged.snapshot.text)]] : []));
  for (const rows of chunks(snapshots)) {
    parts.push({
      size: 3 * rows.length,
      sql: (params) => `INSERT INTO snapshots (document_id, version, text) VALUES ${params.rows(rows)}
         ON CONFLICT (document_id) DO UPDATE SET version = EXCLUDED.version, text = EXCLUDED.text`,
    });
  }
  for (const rows of chunks(all.flatMap((staged) => staged.receipts.map(receiptParams)))) {
    parts.push({ size: 9 * rows.length, sql: (params) => `INSERT INTO patch_receipts (${RECEIPT_COLUMNS}) VALUES ${params.rows(rows)}` });
  }
  return parts;
}

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += ROWS_PER_INSERT) result.push(items.slice(start, start + ROWS_PER_INSERT));
  return result;
}

/** The parts in order, packed into as few statements as the parameter bound allows. */
function packStatements(parts: readonly WritePart[]): WritePart[][] {
  const statements: WritePart[][] = [];
  let size = 0;
  for (const part of parts) {
    const current = statements.at(-1);
    if (current && size + part.size <= PARAMS_PER_STATEMENT) {
      current.push(part);
      size += part.size;
    } else {
      statements.push([part]);
      size = part.size;
    }
  }
  return statements;
}
