/**
 * CPU pinning of the benchmark's processes: every server (the service under test and the bare
 * baselines) on one CPU, every load generator (and this runner) on another, so that the service's
 * figures are those of one core and the load side never takes that core from it. The processes
 * are started through `taskset -c <cpu> node …`, so every thread node creates (libuv's pool, V8's
 * workers, better-sqlite3's) inherits the mask. Without taskset or with one CPU, nothing is pinned.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { availableParallelism } from "node:os";

const TASKSET = "/usr/bin/taskset";

export type PinRole = "server" | "load";

export interface Pinning {
  /** CPU of the servers and of the load side; undefined when unpinned. */
  readonly server?: number;
  readonly load?: number;
  /** Why nothing is pinned (when it is not). */
  readonly reason?: string;
}

/** "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(",")) {
    if (part === "") continue;
    const [low, high] = part.split("-").map(Number);
    for (let cpu = low!; cpu <= (high ?? low!); cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** The CPUs a process or thread may run on (its affinity list), from /proc/<task>/status. */
function allowedCpus(task: string): number[] {
  const match = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${task}/status`, "utf8"));
  return match ? parseCpuList(match[1]!) : [];
}

let decided: Pinning | undefined;

/** Decided once per run: the first two CPUs of this process's affinity list, when there are two. */
export function pinning(): Pinning {
  if (decided) return decided;
  if (process.env.BENCH_NO_PIN) decided = { reason: "BENCH_NO_PIN is set" };
  else if (!existsSync(TASKSET)) decided = { reason: `${TASKSET} is missing` };
  else {
    let cpus: number[] = [];
    try {
      cpus = allowedCpus("self");
    } catch {
      // Not Linux: no /proc.
    }
    if (cpus.length < 2 || availableParallelism() < 2) decided = { reason: `only ${Math.max(cpus.length, 1)} CPU available` };
    else decided = { server: cpus[0]!, load: cpus[1]! };
  }
  return decided;
}

/** The command that starts `node <args>` pinned for `role` (or unpinned). */
export function pinnedCommand(role: PinRole, args: string[]): { file: string; args: string[] } {
  const cpu = pinning()[role];
  return cpu === undefined ? { file: process.execPath, args } : { file: TASKSET, args: ["-c", String(cpu), process.execPath, ...args] };
}

/** `fork` options that start the module pinned for `role`: taskset execs node, which finds its IPC channel as usual. */
export function pinnedFork(role: PinRole, execArgv: string[]): { execPath: string; execArgv: string[] } {
  const cpu = pinning()[role];
  return cpu === undefined ? { execPath: process.execPath, execArgv } : { execPath: TASKSET, execArgv: ["-c", String(cpu), process.execPath, ...execArgv] };
}

/** Moves this process (every thread of it) to the load side's CPU, once its own heavy work (build, data generation) is done. */
export function pinSelf(): void {
  const cpu = pinning().load;
  if (cpu === undefined) return;
  execFileSync(TASKSET, ["-a", "-p", "-c", String(cpu), String(process.pid)], { stdio: "ignore" });
}

/**
 * Checks that every thread of `pid` may run only on its role's CPU; returns what is wrong (empty
 * when nothing is, or when nothing is pinned).
 */
export function checkPinned(pid: number, role: PinRole): string[] {
  const cpu = pinning()[role];
  if (cpu === undefined) return [];
  const wrong: string[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  for (const task of tasks) {
    try {
      const cpus = allowedCpus(`${pid}/task/${task}`);
      if (cpus.length !== 1 || cpus[0] !== cpu) wrong.push(`thread ${task} may run on ${cpus.join(",")}`);
    } catch {
      // The thread ended while we looked.
    }
  }
  return wrong;
}

/** One sentence for each scenario's method notes. */
export function describePinning(): string {
  const pin = pinning();
  if (pin.server === undefined) return `Unpinned (${pin.reason}): the service, the baselines and the load generators share the CPUs, so a load generator's work can slow the service down.`;
  return `Pinned with taskset: the service under test and the baseline servers on CPU ${pin.server}, every load generator and the benchmark runner on CPU ${pin.load} (all threads; checked in /proc/<pid>/task after start-up). Service figures are those of one core. PostgreSQL's own processes are not pinned.`;
}
