import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, release, totalmem } from "node:os";
import BetterSqlite3 from "better-sqlite3";
import { postgresSettings, type PostgresSettings } from "./postgres.js";

/** The machine a run measured on. */
export interface MachineInfo {
  cores: number;
  cpuModel: string;
  ramGiB: number;
  kernel: string;
  node: string;
  sqlite: string;
  betterSqlite3: string;
  fastify: string;
  undici: string;
  tmpFilesystem: string;
  postgres?: PostgresSettings;
}

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

function filesystemOf(path: string): string {
  try {
    return execFileSync("df", ["-T", path], { encoding: "utf8" }).trim().split("\n")[1]?.split(/\s+/)[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

export async function machineInfo(tmp: string, pgUrl?: string): Promise<MachineInfo> {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const db = new BetterSqlite3(":memory:");
  const sqlite = (db.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v;
  db.close();
  return {
    cores: availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown",
    ramGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    kernel: release(),
    node: process.version,
    sqlite,
    betterSqlite3: packageVersion("better-sqlite3"),
    fastify: packageVersion("fastify"),
    undici: packageVersion("undici"),
    tmpFilesystem: filesystemOf(tmp),
    ...(pgUrl ? { postgres: await postgresSettings(pgUrl) } : {}),
  };
}
