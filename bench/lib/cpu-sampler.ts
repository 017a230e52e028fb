import { readSched } from "./proc.js";

/**
 * Samples another process's CPU time and run-queue wait (all its threads, see readSched) every
 * `intervalMs` with wall-clock stamps, so what it used in any window (e.g. a load generator's
 * measurement window) can be read afterwards, interpolated linearly at the window's edges.
 */
export class CpuSampler {
  private readonly samples: { wall: number; cpuMs: number; waitMs: number }[] = [];
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
      const { runMs, waitMs } = readSched(this.pid);
      this.samples.push({ wall: performance.timeOrigin + performance.now(), cpuMs: runMs, waitMs });
    } catch {
      // The process is gone.
    }
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }

  /** CPU (or wait) ms up to wall-clock `at`, interpolated between the samples around it; NaN outside the sampled span. */
  private at(at: number, field: "cpuMs" | "waitMs"): number {
    const { samples } = this;
    if (samples.length < 2 || at < samples[0]!.wall || at > samples[samples.length - 1]!.wall) return Number.NaN;
    let low = 0;
    let high = samples.length - 1;
    while (high - low > 1) {
      const middle = (low + high) >> 1;
      if (samples[middle]!.wall <= at) low = middle;
      else high = middle;
    }
    const a = samples[low]!;
    const b = samples[high]!;
    return b.wall === a.wall ? a[field] : a[field] + ((b[field] - a[field]) * (at - a.wall)) / (b.wall - a.wall);
  }

  /** CPU ms used between two wall-clock times; NaN unless the samples span the window. */
  cpuMsBetween(from: number, to: number): number {
    return this.at(to, "cpuMs") - this.at(from, "cpuMs");
  }

  /** The time its main thread waited for a CPU while runnable, as a share of the window (see readSched). */
  waitShareBetween(from: number, to: number): number {
    return (this.at(to, "waitMs") - this.at(from, "waitMs")) / (to - from);
  }

  /** Cores used on average between two wall-clock times (1.0 = one core fully busy); NaN unless the samples span the window. */
  coresBetween(from: number, to: number): number {
    return this.cpuMsBetween(from, to) / (to - from);
  }
}
