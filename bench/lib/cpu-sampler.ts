import { readCpuMs } from "./proc.js";

/**
 * Samples another process's CPU time every `intervalMs` with wall-clock stamps, so the share of a core
 * it used in any window (e.g. a load generator's measurement window) can be read afterwards.
 */
export class CpuSampler {
  private readonly samples: { wall: number; cpuMs: number }[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 200,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  private sample(): void {
    try {
      this.samples.push({ wall: performance.timeOrigin + performance.now(), cpuMs: readCpuMs(this.pid) });
    } catch {
      // The process is gone.
    }
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }

  /** Cores used on average between two wall-clock times (1.0 = one core fully busy); NaN without samples. */
  coresBetween(from: number, to: number): number {
    const inside = this.samples.filter((sample) => sample.wall >= from && sample.wall <= to);
    if (inside.length < 2) return Number.NaN;
    const first = inside[0]!;
    const last = inside[inside.length - 1]!;
    return (last.cpuMs - first.cpuMs) / (last.wall - first.wall);
  }
}
