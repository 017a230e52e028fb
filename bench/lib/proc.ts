import { readFileSync, readdirSync, readlinkSync } from "node:fs";

/** Readings from /proc about another process (Linux only). */

/** Resident set size (VmRSS) in bytes. */
export function readRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

export interface IoCounters {
  /** Bytes handed to write(2)-like calls, sockets included. */
  wchar: number;
  /** Bytes this process caused to be sent to the storage layer (page cache write-back, fsync'd frames). */
  writeBytes: number;
  syscw: number;
}

export function readIo(pid: number): IoCounters {
  const text = readFileSync(`/proc/${pid}/io`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  return { wchar: field("wchar"), writeBytes: field("write_bytes"), syscw: field("syscw") };
}

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU time of the process in ms from /proc/<pid>/stat: every thread, dead ones included, in 10 ms ticks. */
export function readCpuTicksMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name may hold spaces; the fields after it are fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Run time and run-queue wait of a process's threads, in ms. */
export interface SchedTimes {
  /** Time its threads ran on a CPU. */
  runMs: number;
  /**
   * Time its main thread (the event loop) was runnable but waited for a CPU: another process, or
   * one of its own helper threads (GC, I/O pool) sharing the CPU, had it. NaN without schedstat.
   */
  waitMs: number;
}

/**
 * From /proc/<pid>/task/<tid>/schedstat, to the nanosecond: the run time summed over the process's
 * live threads, and the main thread's run-queue wait. A thread that ended takes its time with it, so
 * differences are exact only over windows in which no thread ends (node's threads live as long as
 * the process). Falls back to /proc/<pid>/stat's 10 ms ticks (and no wait) without schedstat.
 */
export function readSched(pid: number): SchedTimes {
  if (!schedstatAvailable()) return { runMs: readCpuTicksMs(pid), waitMs: Number.NaN };
  let run = 0;
  let wait = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [ran, waited] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ", 2);
      run += Number(ran);
      if (task === String(pid)) wait = Number(waited);
    } catch {
      // The thread ended while we read.
    }
  }
  return { runMs: run / 1e6, waitMs: wait / 1e6 };
}

/** CPU time of the process in ms (see {@link readSched}). */
export function readCpuMs(pid: number): number {
  return readSched(pid).runMs;
}

let schedstat: boolean | undefined;
function schedstatAvailable(): boolean {
  schedstat ??= (() => {
    try {
      readFileSync("/proc/self/schedstat", "utf8");
      return true;
    } catch {
      return false;
    }
  })();
  return schedstat;
}

/** The TCP ports the process listens on (IPv4 and IPv6), from its socket inodes and /proc/net/tcp*. */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  for (const fd of fds) {
    try {
      const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (link.startsWith("socket:[")) inodes.add(link.slice(8, -1));
    } catch {
      // The fd closed while we looked.
    }
  }
  if (inodes.size === 0) return [];
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== "0A" || !inodes.has(fields[9]!)) continue;
      ports.push(Number.parseInt(fields[1]!.split(":")[1]!, 16));
    }
  }
  return ports;
}

/**
 * Waits until the process has used less than `busyFraction` of a core for `quietMs` in a row (or
 * `maxMs` passed): memory is read once the work of registering requests is done.
 */
export async function waitForQuiet(pid: number, options: { quietMs?: number; maxMs?: number; busyFraction?: number } = {}): Promise<{ waitedMs: number; quiet: boolean }> {
  const { quietMs = 1000, maxMs = 10_000, busyFraction = 0.03 } = options;
  const started = performance.now();
  let quietSince = performance.now();
  let lastCpu = readCpuMs(pid);
  let lastAt = performance.now();
  while (performance.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cpu = readCpuMs(pid);
    const now = performance.now();
    if ((cpu - lastCpu) / (now - lastAt) > busyFraction) quietSince = now;
    lastCpu = cpu;
    lastAt = now;
    if (now - quietSince >= quietMs) return { waitedMs: now - started, quiet: true };
  }
  return { waitedMs: performance.now() - started, quiet: false };
}
