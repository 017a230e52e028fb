import type pg from "pg";
import type { StagedWrites } from "../staged-writes.js";
import { COMMIT_CHANNEL } from "./commit-notifier.js";
import {
  DOCUMENT_COLUMNS,
  LiteralValues,
  NoLiteralError,
  RECEIPT_COLUMNS,
  VERSION_COLUMNS,
  StatementParams,
  type SqlValues,
  documentParams,
  encodeText,
  receiptParams,
  versionParams,
} from "./postgres-rows.js";
import { isUuid, type Queryable } from "./postgres-reads.js";

// Rows per INSERT and bind parameters per statement, well below PostgreSQL's 65,535 (a version
// row takes 11, a receipt 9).
const ROWS_PER_INSERT = 1000;
const PARAMS_PER_STATEMENT = 30_000;
/** The longest flush sent with the COMMIT as literal SQL (characters); a longer one goes on its own. */
export const LITERAL_FLUSH_CHARACTERS = 1024 * 1024;

/** One data-modifying statement of the flush, written as the body of a WITH item. */
interface WritePart {
  /** Its bind parameters, for packing parts into statements. */
  size: number;
  /** Whether it returns a row per row it changed, to be counted (a milestone mark). */
  counted: boolean;
  sql: (params: SqlValues) => string;
}

/**
 * Runs `body` in a transaction on a pooled client: COMMIT when it returns, ROLLBACK when it
 * throws. The one place that begins and ends PostgreSQL transactions (writes, compaction, migrations).
 *
 * `opening`, SQL without parameters (one or more statements, every value in it a literal the caller
 * built from checked input), is sent with the BEGIN in one simple query, saving a round trip; `body`
 * gets the result of each of its statements, in order.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient, opened: readonly pg.QueryResult[], commitWith: (closing: string) => void) => Promise<T>,
  opening?: string,
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
    let opened: pg.QueryResult[] = [];
    if (opening === undefined) await client.query("BEGIN");
    // A simple query of several statements answers with one result per statement.
    else opened = (await client.query(`BEGIN; ${opening}`)) as unknown as pg.QueryResult[];
    // `closing`, literal SQL like `opening`, goes with the COMMIT in one simple query: PostgreSQL
    // stops at its first error, so the COMMIT then never runs and the ROLLBACK below ends the transaction.
    let closing: string | undefined;
    const result = await body(client, opened.slice(1), (sql) => {
      closing = sql;
    });
    const committed = (await client.query(closing ? `${closing}; COMMIT` : "COMMIT")) as pg.QueryResult | pg.QueryResult[];
    // A COMMIT of a transaction that an earlier error aborted (a failed statement the body caught)
    // answers ROLLBACK, not an error: nothing was written, and the caller must not hear otherwise.
    if ((Array.isArray(committed) ? committed.at(-1) : committed)?.command === "ROLLBACK") {
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

/**
 * Writes what `staged` holds inside the open transaction of `client`, which holds the document's
 * row lock, as one statement of data-modifying WITH items in the usual case, since every round
 * trip to the database is time the document stays locked. When a version was appended, the
 * commit notice `announce(head)` goes out in the same statement (PostgreSQL delivers it only if
 * the transaction commits) and the head version is returned; otherwise `undefined`: a snapshot,
 * a receipt or a milestone mark alone gives a feed nothing new.
 */
export async function flushStaged(client: Queryable, staged: StagedWrites, announce: (headVersion: number) => string): Promise<number | undefined> {
  staged.finish();
  const first = staged.versions[0];
  const headVersion = staged.headVersion;
  const statements = packStatements(parts([staged]));
  let marked = 0;
  for (const [index, parts] of statements.entries()) {
    const params = new StatementParams();
    const items = parts.map((part, item) => `w${item} AS (${part.sql(params)})`);
    const counts = parts.flatMap((part, item) => (part.counted ? [`(SELECT count(*) FROM w${item})`] : []));
    const columns = [`${counts.join(" + ") || "0"} AS marked`];
    // Every statement of a transaction sees the commits made before it, never its own WITH items:
    // the first statement reads the stored head as it was before this flush.
    if (index === 0 && first) {
      columns.push(`(SELECT coalesce(max(version), 0) FROM versions WHERE document_id = ${params.add(staged.documentId)}) AS stored_head`);
    }
    if (index === statements.length - 1 && headVersion !== undefined) {
      columns.push(`pg_notify(${params.add(COMMIT_CHANNEL)}, ${params.add(announce(headVersion))}) AS notified`);
    }
    const { rows } = await client.query<{ marked: number; stored_head?: number }>(`WITH ${items.join(", ")} SELECT ${columns.join(", ")}`, params.values);
    const row = rows[0]!;
    marked += row.marked;
    if (row.stored_head !== undefined) staged.checkFollows(row.stored_head);
  }
  staged.checkMarked(marked);
  return headVersion;
}

/** One document's staged writes and the commit notice of its new head. */
export interface Flush {
  staged: StagedWrites;
  announce: (headVersion: number) => string;
}

/**
 * The flush of `flushes` (distinct documents) as literal SQL to send with the COMMIT
 * (inTransaction's `commitWith`), which saves the round trip of a flush on its own: one guard for
 * every document that appends versions (it raises the same refusal as StagedWrites.checkFollows),
 * then one statement writing the rows of every table for all of them, each table in one INSERT.
 * `undefined` when they must be flushed on their own ({@link flushStaged}): milestone marks (their
 * count is checked before the commit), a value with no literal, or over {@link LITERAL_FLUSH_CHARACTERS}.
 * Every value in the guard is a checked UUID or a safe integer.
 */
export function flushAtCommit(flushes: readonly Flush[]): string | undefined {
  for (const { staged } of flushes) staged.finish();
  const writing = flushes.filter(({ staged }) => !staged.empty);
  if (writing.length === 0) return undefined;
  if (writing.some(({ staged }) => staged.marks.size > 0 || !isUuid(staged.documentId))) return undefined;
  const guards: string[] = [];
  for (const { staged } of writing) {
    const first = staged.versions[0];
    if (!first) continue;
    if (!Number.isSafeInteger(first.version)) return undefined;
    guards.push(`('${staged.documentId}'::uuid, ${first.version}::bigint)`);
  }
  const values = new LiteralValues();
  const statements: string[] = [];
  try {
    const packed = packStatements(parts(writing.map((flush) => flush.staged)));
    for (const [index, parts] of packed.entries()) {
      const items = parts.map((part, item) => `w${item} AS (${part.sql(values)})`);
      // PostgreSQL delivers the notices only if the transaction commits, and in commit order.
      const notices = index < packed.length - 1 ? [] : writing.flatMap(({ staged, announce }) => {
        const headVersion = staged.headVersion;
        return headVersion === undefined ? [] : [`pg_notify(${values.add(COMMIT_CHANNEL)}, ${values.add(announce(headVersion))})`];
      });
      statements.push(`WITH ${items.join(", ")} SELECT ${["0 AS marked", ...notices].join(", ")}`);
    }
  } catch (error) {
    if (error instanceof NoLiteralError) return undefined;
    throw error;
  }
  if (values.length > LITERAL_FLUSH_CHARACTERS) return undefined;
  if (guards.length === 0) return statements.join("; ");
  const guard = `DO $guard$ DECLARE r record; BEGIN
    FOR r IN SELECT k.id, k.first, coalesce((SELECT max(version) FROM versions v WHERE v.document_id = k.id), 0) AS stored
               FROM (VALUES ${guards.join(", ")}) AS k(id, first) LOOP
      IF r.stored <> r.first - 1 THEN
        RAISE EXCEPTION 'appendVersion(%) on document %: the next version is %', r.first, r.id, r.stored + 1;
      END IF;
    END LOOP;
  END $guard$`;
  return [guard, ...statements].join("; ");
}

/** The writes of `all` (distinct documents), each table's rows in as few INSERTs as {@link ROWS_PER_INSERT} allows. */
function parts(all: readonly StagedWrites[]): WritePart[] {
  const parts: WritePart[] = [];
  const documents = all.flatMap((staged) => (staged.document ? [documentParams(staged.document)] : []));
  for (const rows of chunks(documents)) {
    parts.push({
      size: 7 * rows.length,
      counted: false,
      sql: (params) => `INSERT INTO documents (${DOCUMENT_COLUMNS}) VALUES ${params.rows(rows)}
         ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, version = EXCLUDED.version,
           deleted = EXCLUDED.deleted, created_at = EXCLUDED.created_at,
           updated_at = EXCLUDED.updated_at, checksum = EXCLUDED.checksum`,
    });
  }
  for (const rows of chunks(all.flatMap((staged) => staged.versions.map(versionParams)))) {
    parts.push({ size: 11 * rows.length, counted: false, sql: (params) => `INSERT INTO versions (${VERSION_COLUMNS}) VALUES ${params.rows(rows)}` });
  }
  for (const staged of all) {
    for (const [version, text] of staged.marks) {
      parts.push({
        size: 3,
        counted: true,
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
      counted: false,
      sql: (params) => `INSERT INTO snapshots (document_id, version, text) VALUES ${params.rows(rows)}
         ON CONFLICT (document_id) DO UPDATE SET version = EXCLUDED.version, text = EXCLUDED.text`,
    });
  }
  for (const rows of chunks(all.flatMap((staged) => staged.receipts.map(receiptParams)))) {
    parts.push({ size: 9 * rows.length, counted: false, sql: (params) => `INSERT INTO patch_receipts (${RECEIPT_COLUMNS}) VALUES ${params.rows(rows)}` });
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
