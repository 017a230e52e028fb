/** What the authors load generator (bench/load/authors.ts) and its scenario share, and the waits and the typists of the editor load generators (bench/load/editor-pool.ts, peer-editors.ts). */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { prng } from "../../test/support/prng.js";
import { sleep, wallNow } from "../lib/child.js";

export interface Config {
  /** Global index of this process's first author; author g owns line g. */
  firstAuthor: number;
  authors: number;
  totalAuthors: number;
  intervalMs: number;
  warmupMs: number;
  measureMs: number;
  /** Bound on waiting for in-flight patches after the last tick, and for the feeds to catch up. */
  drainMs: number;
  timeLimitMs: number;
}

export interface RunMessage {
  [key: string]: unknown;
  type: "run";
  done?: boolean;
  /** A fresh service for every run. */
  origin?: string;
  documentId?: string;
  text?: string;
  version?: number;
}

export interface AuthorsResult {
  /** Every 200: the version, when it arrived, who sent it and when it was sent. */
  acks: { versions: number[]; times: number[]; senders: number[]; sentAt: number[] };
  /** Per author of this process (index = global author − firstAuthor): when its view reached which version. */
  views: { versions: number[]; times: number[] }[];
  /** Send → 200 of each patch acknowledged inside the window. */
  patchLatencies: number[];
  sent: number;
  /** Patches still unanswered when the drain bound ran out (aborted). */
  unanswered: number;
  /** When each patch without a 200 (aborted, failed, 409/422) was sent. */
  failedSentAt: number[];
  statuses: Record<string, number>;
  resyncs: number;
  skippedTicks: number;
  ticks: number;
  /** Feed answers (200 and 204) received in the whole run, and inside the measurement window. */
  feedAnswers: number;
  feedAnswersInWindow: number;
  feedErrors: number;
  /** This process's event-loop delay p99 inside the measurement window. */
  loadEventLoopP99Ms: number;
}

/** Resolves once `done()` holds (checked every 10 ms); rejects after `timeoutMs`. */
export async function waitUntil(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > end) throw new Error(`${what || "condition"} not reached within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/**
 * This process's event-loop delay inside the measurement window only (the load-bound test is about
 * the window); with BENCH_DEBUG, its CPU and delay percentiles there go to stderr.
 */
export function watchWindow(windowStart: number, windowEnd: number): { p99Ms(): number; stop(): void } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let cpuAtStart = process.cpuUsage();
  const timers = [
    setTimeout(() => {
      delay.enable();
      cpuAtStart = process.cpuUsage();
    }, windowStart - wallNow()),
    setTimeout(() => {
      delay.disable();
      if (!process.env.BENCH_DEBUG) return;
      const cpu = process.cpuUsage(cpuAtStart);
      const ms = (p: number) => (delay.percentile(p) / 1e6).toFixed(0);
      process.stderr.write(
        `authors: in the window: CPU user ${(cpu.user / 1000).toFixed(0)} ms, system ${(cpu.system / 1000).toFixed(0)} ms; event-loop delay p50 ${ms(50)} p90 ${ms(90)} p99 ${ms(99)} max ${(delay.max / 1e6).toFixed(0)} ms over ${delay.count} samples\n`,
      );
    }, windowEnd - wallNow()),
  ];
  return {
    p99Ms: () => (delay.count > 0 ? delay.percentile(99) / 1e6 : Number.NaN),
    stop: () => {
      timers.forEach(clearTimeout);
      delay.disable();
    },
  };
}

/**
 * The editors that type: a seeded shuffle (the same every run of a seed) takes `share` of them, so
 * some documents get none and some several, as in life. Both editor load generators
 * (bench/load/editors.ts, bench/load/peer-editors.ts) pick them so.
 */
export function pickTypists<T>(editors: readonly T[], share: number, seed: number): T[] {
  const random = prng(seed);
  const order = editors.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order.slice(0, Math.round(editors.length * share)).map((i) => editors[i]!);
}
