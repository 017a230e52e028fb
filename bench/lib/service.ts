import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createDatabase, dropDatabase } from "./postgres.js";
import { REPO_ROOT, spawnServer, type ServerHandle } from "./processes.js";

const run = promisify(execFile);

/** `--import` value for tsx that works from any working directory. */
export const TSX_IMPORT = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** How the service under test is started: the built JavaScript (realistic) or the sources through tsx. */
export interface ServiceBuild {
  mode: "dist" | "tsx";
  /** Node arguments that run the entry. */
  entryArgs: string[];
  /** Why the build was not used, when it was not. */
  note?: string;
  buildMs: number;
}

/**
 * Compiles src/ into `<tmp>/app/dist` (never the repository's own dist/, which others may use) with
 * package.json beside it and node_modules linked, so `node dist/server.js` runs as in production.
 * Falls back to tsx when the sources do not compile right now.
 */
export async function buildService(tmp: string, from: { root: string; name: string } = { root: REPO_ROOT, name: "app" }): Promise<ServiceBuild> {
  const app = join(tmp, from.name);
  mkdirSync(app, { recursive: true });
  const started = performance.now();
  const entry = join(app, "dist/server.js");
  let typeErrors: string | undefined;
  try {
    await run(process.execPath, [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", join(from.root, "tsconfig.build.json"), "--outDir", join(app, "dist")], {
      cwd: from.root,
      timeout: 180_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    // tsc still emits JavaScript when it finds type errors (others may be mid-change in src/).
    typeErrors = ((error as { stdout?: string }).stdout ?? String(error)).slice(0, 400);
  }
  const buildMs = performance.now() - started;
  if (existsSync(entry)) {
    copyFileSync(join(REPO_ROOT, "package.json"), join(app, "package.json"));
    symlinkSync(join(REPO_ROOT, "node_modules"), join(app, "node_modules"), "dir");
    return {
      mode: "dist",
      entryArgs: [entry],
      buildMs,
      ...(typeErrors ? { note: `tsc reported type errors in src/ at build time (JavaScript emitted anyway and used): ${typeErrors}` } : {}),
    };
  }
  return {
    mode: "tsx",
    entryArgs: ["--import", TSX_IMPORT, join(from.root, "src/server.ts")],
    note: `tsc emitted nothing, so the service ran from source through tsx: ${typeErrors ?? "unknown error"}`,
    buildMs,
  };
}

export type Backend = "sqlite" | "postgres";

/** The service under test and the storage it was given. */
export interface ServiceUnderTest extends ServerHandle {
  readonly backend: Backend;
  readonly storageUrl: string;
  /** The SQLite file (sqlite backend only). */
  readonly dbPath?: string;
  /** Stops the service (SIGTERM, SIGKILL after `graceMs`) and drops a database created for it. */
  close(graceMs?: number): Promise<void>;
}

export interface StartServiceOptions {
  build: ServiceBuild;
  backend: Backend;
  /** PostgreSQL admin URL (postgres backend). */
  pgUrl?: string;
  tmp: string;
  /** Use this storage instead of a fresh one (it is kept on close). */
  storage?: { url: string; dbPath?: string };
  /** Extra environment, e.g. a different log level. */
  env?: Record<string, string>;
  /** Write a CPU profile of the service into this directory on exit. */
  profileDir?: string;
  readiness?: "log" | "port";
  timeoutMs?: number;
  /** Node.js flags instead of those of `npm start` (bench/ab.ts compares flags). */
  nodeFlags?: string[];
  /** Run on the load side's CPU: a second instance of the service (two instances on two cores). */
  pinToLoadCpu?: boolean;
}

/**
 * The Node.js flags of the `start` script in package.json, read from it. The bare baselines run
 * with them too: a ratio against a baseline compares the code, not the runtime's settings.
 */
export const SERVICE_NODE_FLAGS: string[] = (() => {
  const start = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith("--") && !word.startsWith("--import"));
})();

let services = 0;

/** Starts the service on a free loopback port with fresh storage (unless given) and waits until GET /api/v1/info answers. */
export async function startService(options: StartServiceOptions): Promise<ServiceUnderTest> {
  const n = ++services;
  const dir = join(options.tmp, `service-${n}`);
  mkdirSync(dir, { recursive: true });
  let storageUrl: string;
  let dbPath: string | undefined;
  let dropName: string | undefined;
  if (options.storage) {
    storageUrl = options.storage.url;
    dbPath = options.storage.dbPath;
  } else if (options.backend === "sqlite") {
    dbPath = join(dir, "bench.db");
    storageUrl = `sqlite:${dbPath}`;
  } else {
    if (!options.pgUrl) throw new Error("the postgres backend needs --pg URL");
    const created = await createDatabase(options.pgUrl);
    storageUrl = created.url;
    dropName = created.name;
  }
  const env: Record<string, string> = {
    SERVER_HOST: "127.0.0.1",
    SERVER_PORT: "0",
    SERVICE_STORAGE_URL: storageUrl,
    LOG_LEVEL: "warn",
    SERVICE_DOCUMENTS_MAX_CONTENT_BYTES: String(16 * 1024 * 1024),
    SERVICE_FEED_MAX_WAIT_SECONDS: "120",
    // Every simulated author writes from 127.0.0.1: one address sending what thousands of people
    // would. The limits are per address, so the benchmarks measure the service without them.
    SERVICE_RATE_LIMIT_CREATES_PER_MINUTE: "0",
    SERVICE_RATE_LIMIT_WRITES_PER_SECOND: "0",
    SERVICE_RATE_LIMIT_READS_PER_SECOND: "0",
    SERVICE_RATE_LIMIT_WAITS_PER_ADDRESS: "0",
    SERVICE_RATE_LIMIT_TRACKER_LOGINS_PER_MINUTE: "0",
    SERVICE_RATE_LIMIT_TRACKER_READS_PER_SECOND: "0",
    ...options.env,
  };
  // The service runs with the flags `npm start` gives it (package.json).
  // BENCH_SERVICE_NODE_FLAGS (diagnostics, e.g. "--single-threaded-gc --perf-basic-prof" for perf): instead of npm start's.
  const flags = options.nodeFlags ?? (process.env.BENCH_SERVICE_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? SERVICE_NODE_FLAGS);
  const nodeArgs = [...(options.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`] : []), ...flags, ...options.build.entryArgs];
  let server: ServerHandle;
  try {
    server = await spawnServer({
      name: `service (${options.backend})`,
      nodeArgs,
      env,
      cwd: dir,
      readiness: options.readiness ?? (env.LOG_LEVEL === "info" || env.LOG_LEVEL === "debug" ? "log" : "port"),
      healthPath: "/api/v1/info",
      timeoutMs: options.timeoutMs ?? 120_000,
      ...(options.pinToLoadCpu ? { pin: "load" as const } : {}),
    });
  } catch (error) {
    if (dropName && options.pgUrl) await dropDatabase(options.pgUrl, dropName).catch(() => undefined);
    throw error;
  }
  return {
    ...server,
    backend: options.backend,
    storageUrl,
    ...(dbPath ? { dbPath } : {}),
    close: async (graceMs = 20_000) => {
      await server.stop(graceMs);
      if (dropName && options.pgUrl) await dropDatabase(options.pgUrl, dropName);
    },
  };
}

/** Starts one of the bare Fastify baseline servers (bench/baselines/<name>.ts) through tsx. */
export async function startBaseline(name: "bare-fastify" | "bare-sqlite", tmp: string): Promise<ServerHandle> {
  const n = ++services;
  const dir = join(tmp, `baseline-${n}`);
  mkdirSync(dir, { recursive: true });
  return spawnServer({
    name,
    nodeArgs: [...SERVICE_NODE_FLAGS, "--import", TSX_IMPORT, join(REPO_ROOT, `bench/baselines/${name}.ts`)],
    env: { BENCH_DB: join(dir, "baseline.db"), NODE_PATH: join(REPO_ROOT, "node_modules") },
    cwd: REPO_ROOT,
    readiness: "log",
    healthPath: "/json",
    timeoutMs: 60_000,
  });
}

/** Starts a peer server of the open-editors scenario (bench/baselines/<name>.ts) through tsx, pinned like the service; GET / answers 200. */
export async function startPeer(name: "hocuspocus" | "sharedb", tmp: string): Promise<ServerHandle> {
  const n = ++services;
  const dir = join(tmp, `peer-${n}`);
  mkdirSync(dir, { recursive: true });
  return spawnServer({
    name,
    nodeArgs: [...SERVICE_NODE_FLAGS, "--import", TSX_IMPORT, join(REPO_ROOT, `bench/baselines/${name}.ts`)],
    env: { BENCH_DB: join(dir, "peer.db"), NODE_PATH: join(REPO_ROOT, "node_modules") },
    cwd: REPO_ROOT,
    readiness: "log",
    healthPath: "/",
    timeoutMs: 60_000,
  });
}
