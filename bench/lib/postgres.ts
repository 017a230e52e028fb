import pg from "pg";

/** Throw-away PostgreSQL databases for the service under test, created and dropped through an admin URL. */

const PREFIX = "folio_bench_";
let counter = 0;

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, statement_timeout: 600_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates a fresh, empty database; its name carries this process's pid. */
export async function createDatabase(adminUrl: string): Promise<{ name: string; url: string }> {
  const name = `${PREFIX}${process.pid}_${++counter}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  return { name, url: withDatabase(adminUrl, name) };
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  if (!name.startsWith(PREFIX)) throw new Error(`refusing to drop ${name}`);
  await withClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Drops the benchmark databases that a killed earlier run left behind (their pid is gone). */
export async function dropOrphans(adminUrl: string): Promise<string[]> {
  return withClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'folio\\_bench\\_%'");
    const dropped: string[] = [];
    for (const { datname } of rows) {
      const pid = Number(/^folio_bench_(\d+)_\d+$/.exec(datname)?.[1]);
      if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue;
      await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      dropped.push(datname);
    }
    return dropped;
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface PostgresSettings {
  version: string;
  synchronousCommit: string;
  fsync: string;
  walSyncMethod: string;
}

export async function postgresSettings(url: string): Promise<PostgresSettings> {
  return withClient(url, async (client) => {
    const show = async (name: string) => (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
    return {
      version: await show("server_version"),
      synchronousCommit: await show("synchronous_commit"),
      fsync: await show("fsync"),
      walSyncMethod: await show("wal_sync_method"),
    };
  });
}

/** Runs statements against a database (data generation for the restart scenario). */
export async function runSql(url: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  await withClient(url, work);
}
