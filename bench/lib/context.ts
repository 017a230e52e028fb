import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { describePinning } from "./pinning.js";
import type { ScenarioResult } from "./results.js";
import type { Backend, ServiceBuild } from "./service.js";

/** What every scenario gets from the runner. */
export interface BenchContext {
  backend: Backend;
  /** PostgreSQL admin URL (the --pg argument). */
  pgUrl?: string;
  quick: boolean;
  /** This run's temporary directory; removed at the end. */
  tmp: string;
  build: ServiceBuild;
  /** performance.now() by which the scenario must be done. */
  deadline: number;
  log(message: string): void;
}

/** One scenario of `npm run bench`. */
export interface Scenario {
  id: string;
  title: string;
  /** The time the scenario is allowed in full and in quick mode, in seconds. */
  budgetS: { full: number; quick: number };
  run(context: BenchContext): Promise<ScenarioResult>;
  /**
   * Set-up that needs no service (data generation), started before the build so the two overlap;
   * the runner waits for it before the first measurement, so it never competes with one.
   */
  prepare?(context: Pick<BenchContext, "backend" | "quick" | "tmp" | "pgUrl">): Promise<unknown>;
  /** One shorter run with the service under `--cpu-prof`, for a missed target. */
  profile?(context: BenchContext, profileDir: string): Promise<{ command: string }>;
}

export function loadAverage(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

/** Share of the last 60 s in which runnable tasks waited for a CPU (/proc/pressure/cpu "some avg60"), in %. */
export function cpuPressure(): number {
  try {
    return Number(/^some avg10=[\d.]+ avg60=([\d.]+)/m.exec(readFileSync("/proc/pressure/cpu", "utf8"))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** Throws when the scenario's time is up: every loop checks this. */
export function checkDeadline(context: BenchContext, what: string): void {
  if (performance.now() > context.deadline) throw new Error(`time limit reached during ${what}`);
}

/** A scenario result skeleton with its start time and load. */
export function beginResult(id: string, title: string, backend: Backend): { result: ScenarioResult; finish: () => ScenarioResult } {
  const started = performance.now();
  const result: ScenarioResult = {
    id,
    title,
    backend,
    startedAt: new Date().toISOString(),
    durationS: 0,
    load: [loadAverage(), 0],
    cpuPressure: [cpuPressure(), 0],
    // Every scenario's method starts with how its processes were placed on the CPUs.
    method: [describePinning()],
    rows: [],
    targets: [],
    notes: [],
  };
  return {
    result,
    finish: () => {
      result.durationS = Math.round((performance.now() - started) / 100) / 10;
      result.load[1] = loadAverage();
      result.cpuPressure[1] = cpuPressure();
      return result;
    },
  };
}

/**
 * Measures each level in turn (`measure` gives its runs); a level that got none, too late to fit one
 * before the deadline, is left out and named in a note rather than half-measured.
 */
export async function measureLevels<R>(result: ScenarioResult, symbol: string, levels: readonly number[], measure: (level: number) => Promise<R[]>): Promise<Map<number, R[]>> {
  const byLevel = new Map<number, R[]>();
  const skipped: number[] = [];
  for (const level of levels) {
    const runs = await measure(level);
    if (runs.length > 0) byLevel.set(level, runs);
    else skipped.push(level);
  }
  if (skipped.length > 0) result.notes.push(`Not measured for lack of time in this run: ${symbol} = ${skipped.join(", ")}.`);
  return byLevel;
}

/** Up to `count` runs of `once`, none started that would not end before the deadline (`costMs`: one run's rough wall time). */
export async function runsThatFit<R>(context: BenchContext, count: number, costMs: number, once: (run: number) => Promise<R>): Promise<R[]> {
  const runs: R[] = [];
  for (let run = 0; run < count && performance.now() + costMs <= context.deadline; run++) runs.push(await once(run));
  return runs;
}

/** A positive whole number from the environment variable `name` (diagnostics), else `planned`. */
export function positiveFromEnv(name: string, planned: number): number {
  const value = Number(process.env[name] ?? "");
  return Number.isInteger(value) && value > 0 ? value : planned;
}
