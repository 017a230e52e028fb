import { fork, spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { request } from "undici";
import { checkPinned, pinnedCommand, pinnedFork, type PinRole } from "./pinning.js";
import { listeningPorts } from "./proc.js";

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GUARD = pathToFileURL(fileURLToPath(new URL("./parent-guard.mjs", import.meta.url))).href;

const children = new Set<ChildProcess>();
let cleanupInstalled = false;

function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
  children.clear();
}

/** Kills every child this process started when it exits, however it exits. */
export function installCleanup(onSignal?: () => void): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}: killing child processes\n`);
      killAll();
      onSignal?.();
      process.exit(130);
    });
  }
}

function track(child: ChildProcess): void {
  children.add(child);
  child.once("exit", () => children.delete(child));
}

/** A server started by the benchmark. */
export interface ServerHandle {
  readonly name: string;
  readonly pid: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** ms from spawn until the listening log line (log readiness) or until the port was seen listening. */
  readonly listeningMs: number;
  /** ms from spawn until the health path first answered 200. */
  readonly readyMs: number;
  readonly child: ChildProcess;
  /** stderr and non-JSON stdout, for error messages. */
  output(): string;
  /** JSON log lines seen on stdout. */
  readonly logLines: Record<string, unknown>[];
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
}

export interface SpawnServerOptions {
  name: string;
  /** Node arguments: flags, then the script, then its arguments. */
  nodeArgs: string[];
  env: Record<string, string>;
  cwd: string;
  /** `log`: wait for a JSON line whose msg starts with "listening on "; `port`: watch /proc for a listening socket. */
  readiness: "log" | "port";
  /** A GET path answered 200 once the server serves requests. */
  healthPath: string;
  timeoutMs?: number;
  /** The CPU it runs on: the servers' (default), or the load side's for a second instance of the service. */
  pin?: PinRole;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a Node server as a child process and resolves once it answers `healthPath`. */
export async function spawnServer(options: SpawnServerOptions): Promise<ServerHandle> {
  const { name, timeoutMs = 60_000 } = options;
  const spawnedAt = performance.now();
  // Every server runs on the servers' CPU (when pinning is possible), a second instance on the other.
  const pin = options.pin ?? "server";
  const command = pinnedCommand(pin, ["--import", GUARD, ...options.nodeArgs]);
  const child = spawn(command.file, command.args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  track(child);
  const raw: string[] = [];
  const logLines: Record<string, unknown>[] = [];
  let listening: { at: number; origin?: string } | undefined;
  createInterface({ input: child.stdout }).on("line", (line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      logLines.push(parsed);
      if (!listening && typeof parsed.msg === "string" && parsed.msg.startsWith("listening on ")) {
        const address = typeof parsed.address === "string" ? parsed.address : parsed.msg.slice("listening on ".length);
        listening = { at: performance.now(), origin: new URL(address).origin };
      }
    } catch {
      raw.push(line);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    raw.push(chunk);
    if (raw.length > 200) raw.splice(0, raw.length - 200);
  });
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<number | null>((resolve) =>
    child.once("exit", (code, signal) => {
      exited = { code, signal };
      resolve(code);
    }),
  );
  const output = () => raw.join("\n").slice(-4000);
  const fail = (why: string) => {
    child.kill("SIGKILL");
    return new Error(`${name}: ${why}\n${output()}`);
  };

  const deadline = spawnedAt + timeoutMs;
  let origin: string | undefined;
  let listeningAt = 0;
  while (origin === undefined) {
    if (exited) throw fail(`exited during start-up (code ${exited.code}, signal ${exited.signal})`);
    if (performance.now() > deadline) throw fail(`not listening after ${timeoutMs} ms`);
    if (options.readiness === "log") {
      if (listening?.origin) {
        origin = listening.origin;
        listeningAt = listening.at;
        break;
      }
      await sleep(2);
    } else {
      const ports = listeningPorts(child.pid!);
      if (ports.length > 0) {
        origin = `http://127.0.0.1:${ports[0]}`;
        listeningAt = performance.now();
        break;
      }
      await sleep(10);
    }
  }
  for (;;) {
    if (exited) throw fail(`exited during start-up (code ${exited.code})`);
    if (performance.now() > deadline) throw fail(`${options.healthPath} did not answer 200 within ${timeoutMs} ms`);
    try {
      const response = await request(`${origin}${options.healthPath}`, { headersTimeout: 5000, bodyTimeout: 5000 });
      await response.body.dump();
      if (response.statusCode === 200) break;
    } catch {
      // Not yet.
    }
    await sleep(5);
  }
  const readyAt = performance.now();
  const unpinned = checkPinned(child.pid!, pin);
  if (unpinned.length > 0) throw fail(`not pinned as planned: ${unpinned.join("; ")}`);

  return {
    name,
    pid: child.pid!,
    origin,
    listeningMs: listeningAt - spawnedAt,
    readyMs: readyAt - spawnedAt,
    child,
    output,
    logLines,
    stop: async (graceMs = 10_000) => {
      if (exited) return exited.code;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** A message a load generator sends over IPC. */
export interface LoadMessage {
  type: string;
  [key: string]: unknown;
}

/** A load generator running as a child process (`node --import tsx`), talking JSON over IPC. */
export interface LoadHandle {
  readonly pid: number;
  send(message: LoadMessage): void;
  /** The next message of `type` (queued if it came already); rejects on an error message, an early exit or the timeout. */
  next<T extends LoadMessage>(type: string, timeoutMs: number): Promise<T>;
  kill(): void;
  /** Resolves when the process has exited (killing it after `timeoutMs`). */
  exited(timeoutMs?: number): Promise<void>;
}

/** Forks `bench/load/<script>.ts` with its configuration as the first argument. */
export function forkLoad(script: string, config: unknown, options: { heapMb?: number } = {}): LoadHandle {
  const path = fileURLToPath(new URL(`../load/${script}.ts`, import.meta.url));
  // BENCH_LOAD_PROFILE=<dir>: the load generators write CPU profiles there (for making them cheaper).
  const profile = process.env.BENCH_LOAD_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_LOAD_PROFILE}`] : [];
  const execArgv = ["--import", "tsx", ...profile, ...(options.heapMb ? [`--max-old-space-size=${options.heapMb}`] : [])];
  // Every load generator runs on the load side's CPU (when pinning is possible).
  const child = fork(path, [JSON.stringify(config)], { cwd: REPO_ROOT, ...pinnedFork("load", execArgv), stdio: ["ignore", "pipe", "pipe", "ipc"], serialization: "advanced" });
  track(child);
  const errors: string[] = [];
  let forwarded = 0;
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    errors.push(chunk);
    if (errors.length > 100) errors.splice(0, errors.length - 100);
    // The first few lines go to the console too (a load generator's own diagnostics).
    if (forwarded < 10) {
      forwarded++;
      process.stderr.write(`[${script}] ${chunk.trimEnd().split("\n").slice(0, 3).join(" | ")}\n`);
    }
  });
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => process.stderr.write(`[${script}] ${chunk}`));
  const queue: LoadMessage[] = [];
  const waiters = new Set<() => void>();
  let exitInfo: string | undefined;
  let checked = false;
  child.on("message", (message: LoadMessage) => {
    if (!checked) {
      // By its first message the process has started all its threads.
      checked = true;
      const unpinned = checkPinned(child.pid!, "load");
      if (unpinned.length > 0) queue.push({ type: "error", message: `not pinned as planned: ${unpinned.join("; ")}` });
    }
    queue.push(message);
    waiters.forEach((wake) => wake());
  });
  const exit = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exitInfo = `exited (code ${code}, signal ${signal})`;
      waiters.forEach((wake) => wake());
      resolve();
    }),
  );
  return {
    pid: child.pid!,
    send: (message) => {
      if (child.connected) child.send(message);
    },
    next: <T extends LoadMessage>(type: string, timeoutMs: number) =>
      new Promise<T>((resolve, reject) => {
        const check = () => {
          const errorAt = queue.findIndex((message) => message.type === "error");
          if (errorAt >= 0) {
            finish();
            reject(new Error(`load generator ${script}: ${String(queue[errorAt]!.message)}\n${errors.join("").slice(-3000)}`));
            return;
          }
          const at = queue.findIndex((message) => message.type === type);
          if (at >= 0) {
            finish();
            resolve(queue.splice(at, 1)[0] as T);
            return;
          }
          if (exitInfo) {
            finish();
            reject(new Error(`load generator ${script} ${exitInfo} before sending "${type}"\n${errors.join("").slice(-3000)}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          child.kill("SIGKILL");
          reject(new Error(`load generator ${script}: no "${type}" within ${timeoutMs} ms\n${errors.join("").slice(-3000)}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
    exited: async (timeoutMs = 10_000) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      await exit;
      clearTimeout(timer);
    },
  };
}
