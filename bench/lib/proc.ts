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

/** User + system CPU time of the process in ms. */
export function readCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name may hold spaces; the fields after it are fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
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
