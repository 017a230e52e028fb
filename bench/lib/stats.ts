/** Small statistics for benchmark figures: medians of runs, percentiles of samples. */

/** The median of a list (the mean of the two middle values for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The p-th percentile (0..100) of an ascending list, linearly interpolated; NaN when empty. */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low]!;
  const highValue = sorted[high]!;
  // Infinity stands for "never happened": interpolating towards it gives Infinity, not NaN.
  if (highValue === Number.POSITIVE_INFINITY) return rank === low ? lowValue : highValue;
  return lowValue + (highValue - lowValue) * (rank - low);
}

/** The p-th percentile (0..100) of an unsorted list. */
export function percentile(values: readonly number[], p: number): number {
  return percentileOfSorted(Float64Array.from(values).sort(), p);
}

/** One figure measured in several runs: the median and the spread. */
export interface Figure {
  median: number;
  min: number;
  max: number;
  runs: number[];
  unit: string;
}

export function figure(runs: readonly number[], unit: string): Figure {
  const finite = runs.filter((value) => Number.isFinite(value));
  return {
    median: median(runs),
    min: finite.length > 0 ? Math.min(...finite) : Number.NaN,
    max: finite.length > 0 ? Math.max(...finite) : Number.NaN,
    runs: [...runs],
    unit,
  };
}

/**
 * A latency histogram with 0.1 ms buckets up to `maxMs` (values above land in an overflow count, and
 * Infinity stands for "never happened"): percentiles over millions of samples without sorting them.
 */
export class Histogram {
  private readonly buckets: Uint32Array;
  private overflow = 0;
  private total = 0;
  private static readonly RESOLUTION_MS = 0.1;

  constructor(private readonly maxMs = 60_000) {
    this.buckets = new Uint32Array(Math.ceil(maxMs / Histogram.RESOLUTION_MS) + 1);
  }

  add(ms: number): void {
    this.total++;
    if (!(ms < this.maxMs)) {
      this.overflow++;
      return;
    }
    this.buckets[Math.max(0, Math.round(ms / Histogram.RESOLUTION_MS))]!++;
  }

  get count(): number {
    return this.total;
  }

  /** Samples at or above the maximum, Infinity included. */
  get overflowCount(): number {
    return this.overflow;
  }

  /** The p-th percentile in ms; Infinity when it falls among the overflow. */
  percentile(p: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.ceil((p / 100) * this.total);
    let seen = 0;
    for (let bucket = 0; bucket < this.buckets.length; bucket++) {
      seen += this.buckets[bucket]!;
      if (seen >= rank && seen > 0) return bucket * Histogram.RESOLUTION_MS;
    }
    return Number.POSITIVE_INFINITY;
  }
}

/** Formats a number for tables: three significant digits, thousands grouped, no exponent. */
export function formatNumber(value: number, digits = 3): string {
  if (Number.isNaN(value)) return "n/a";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "-∞";
  if (value === 0) return "0";
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return value.toLocaleString("en-US", { maximumFractionDigits: decimals, minimumFractionDigits: 0 });
}
