// `npm run backup -- <file>`: an online, consistent copy of the configured SQLite store, taken
// while the service runs (see docs/operations.md, "Backups"). The configuration is read as the server reads it.
import { resolve } from "node:path";
import { ConfigError, loadConfig } from "../config/config.js";
import { backupSqlite } from "../storage/sqlite/sqlite-backup.js";
import { parseStorageUrl } from "../storage/storage-url.js";

const [target, ...rest] = process.argv.slice(2);
if (target === undefined || target === "" || rest.length > 0) {
  process.stderr.write("usage: npm run backup -- <file>\n");
  process.exit(2);
}

let storageUrl: string;
try {
  storageUrl = loadConfig().storage.url;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`configuration error: ${error.message}\n`);
  process.exit(2);
}
const location = parseStorageUrl(storageUrl);
if (location.kind !== "sqlite" || location.path === ":memory:") {
  process.stderr.write(
    location.kind === "postgres"
      ? "the store is PostgreSQL: back it up with pg_dump (see docs/operations.md, Backups)\n"
      : "the store is in memory: there is nothing to back up\n",
  );
  process.exit(2);
}

const source = resolve(location.path);
const destination = resolve(target);
if (source === destination) {
  process.stderr.write("the backup file must not be the database itself\n");
  process.exit(2);
}
try {
  const started = Date.now();
  const result = await backupSqlite(source, destination);
  process.stdout.write(`${JSON.stringify({ backup: destination, from: source, ...result, ms: Date.now() - started })}\n`);
} catch (error) {
  process.stderr.write(`backup failed: ${(error as Error).message}\n`);
  process.exit(1);
}
