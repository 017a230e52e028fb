import { execFileSync, spawn, type ChildProcessByStdio } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { afterEach, beforeEach } from "vitest";

/** The repository root, where package.json and src/ live. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Builds dist/ for tests that run `npm start`, only when the checkout was never built (`npm ci` builds it: prepare). */
export function ensureBuilt(): void {
  if (!existsSync(`${REPO_ROOT}dist/server.js`)) execFileSync("npm", ["run", "build"], { cwd: REPO_ROOT, stdio: "ignore", timeout: 120_000 });
}

/** `node --import <tsx>`: runs the TypeScript sources as they are, from any working directory. */
export function tsxNodeArguments(script: string): string[] {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return ["--import", tsx, fileURLToPath(new URL(`../../${script}`, import.meta.url))];
}

/** One JSON log line of the service (pino). */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The service running as a child process, with its log lines collected as they come. */
export interface ServerProcess {
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  readonly lines: LogLine[];
  /** What the process wrote to stdout that is not a JSON line, and everything it wrote to stderr. */
  readonly rawOutput: () => string;
  /** Resolves with the first log line (already seen or still to come) that `matches`; rejects after `timeoutMs`. */
  waitForLine(matches: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  /** Resolves when the process has exited; rejects after `timeoutMs` (and kills it). */
  waitForExit(timeoutMs: number): Promise<ExitStatus>;
  /** Sends `signal` to every process of the group the process leads (started with `ownGroup`). */
  signalGroup(signal: NodeJS.Signals): void;
  /** Kills the process (its group, when it leads one) if it still runs (cleanup after a failed test). */
  kill(): void;
}

/**
 * Starts `script` (relative to the repository root) with `args`, exactly `env` plus PATH, in `cwd`, so
 * neither the caller's environment nor a service.yaml of the repository leaks in.
 */
export function startProcess(script: string, env: Record<string, string>, cwd: string, args: readonly string[] = [], options: { ownGroup?: boolean } = {}): ServerProcess {
  return startCommand(process.execPath, [...tsxNodeArguments(script), ...args], env, cwd, options);
}

/**
 * Like {@link startProcess}, for any command (`npm start`, `node dist/server.js`). With `ownGroup`
 * the command leads a process group of its own, as under a terminal or a supervisor, so that
 * {@link ServerProcess.signalGroup} reaches it and every process it started.
 */
export function startCommand(command: string, args: string[], env: Record<string, string>, cwd: string, options: { ownGroup?: boolean } = {}): ServerProcess {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: options.ownGroup === true,
  });
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((waiter) => waiter());

  createInterface({ input: child.stdout }).on("line", (text) => {
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      raw.push(text);
    }
    notify();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => raw.push(chunk));

  let exitStatus: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) =>
    child.once("exit", (code, signal) => {
      exitStatus = { code, signal };
      notify();
      resolve(exitStatus);
    }),
  );
  // The exit code is known before the last piped output is read; wait for the pipes too.
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));

  const describe = () => `log lines:\n${lines.map((line) => JSON.stringify(line)).join("\n")}\nother output:\n${raw.join("")}`;

  return {
    child,
    lines,
    rawOutput: () => raw.join(""),
    waitForLine(matches, timeoutMs) {
      return new Promise<LogLine>((resolve, reject) => {
        const check = () => {
          const found = lines.find(matches);
          if (found) finish(() => resolve(found));
          else if (exitStatus) finish(() => reject(new Error(`the process exited (${JSON.stringify(exitStatus)}) before the line came\n${describe()}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no such log line within ${timeoutMs} ms\n${describe()}`))), timeoutMs);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    async waitForExit(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`the process did not exit within ${timeoutMs} ms\n${describe()}`));
        }, timeoutMs);
      });
      try {
        const status = await Promise.race([exited, timeout]);
        await Promise.race([closed, timeout]);
        return status;
      } finally {
        clearTimeout(timer);
      }
    },
    signalGroup(signal) {
      if (!options.ownGroup || child.pid === undefined) throw new Error("the process leads no group of its own");
      process.kill(-child.pid, signal);
    },
    kill() {
      if (options.ownGroup && child.pid !== undefined) {
        // The group outlives its leader when a child of it still runs: end them all.
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // The group is gone.
        }
      } else if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/**
 * A fresh temporary folder for each test of the calling file, and the processes the test starts
 * there: after each test every tracked process is killed and the folder removed. The object
 * returned stands for the current test's (`work.dir` inside a test).
 */
export function processesPerTest(prefix: string, options: { emptyConfigFile?: boolean } = {}): { readonly dir: string; track<P extends ServerProcess>(started: P): P } {
  let current: string | undefined;
  const processes: ServerProcess[] = [];
  beforeEach(() => {
    current = mkdtempSync(join(tmpdir(), prefix));
    if (options.emptyConfigFile) writeFileSync(join(current, "empty.yaml"), "");
  });
  afterEach(() => {
    for (const started of processes.splice(0)) started.kill();
    if (current !== undefined) rmSync(current, { recursive: true, force: true });
    current = undefined;
  });
  return {
    get dir() {
      if (current === undefined) throw new Error("processesPerTest: the folder exists only while a test runs");
      return current;
    },
    track(started) {
      processes.push(started);
      return started;
    },
  };
}
