import type { Figure } from "./stats.js";

/** One target of the issue, evaluated. */
export interface TargetResult {
  id: string;
  label: string;
  /** What was compared, in words with the numbers. */
  measured: string;
  /** The measured ratio (or absolute value where the target is absolute). */
  value: number;
  /** The bound, e.g. "≥ 1.0" or "≤ 12 KB". */
  threshold: string;
  met: boolean;
}

/** One row of a scenario's figures table. */
export interface FigureRow {
  label: string;
  figure: Figure;
}

/** What a scenario reports. */
export interface ScenarioResult {
  id: string;
  title: string;
  backend: string;
  startedAt: string;
  durationS: number;
  /** The commit (and uncommitted changes) the service was built from; set by the runner. */
  source?: string;
  /** Load average (1 min) when the scenario started and ended. */
  load: [number, number];
  /** CPU pressure (% of time runnable tasks waited for a CPU, 60 s average) at start and end. */
  cpuPressure: [number, number];
  /** How the scenario measures, one sentence each. */
  method: string[];
  rows: FigureRow[];
  targets: TargetResult[];
  notes: string[];
}

/** A CPU profile summary of the service taken during a scenario. */
export interface ProfileResult {
  scenario: string;
  backend: string;
  takenAt: string;
  /** The commit the service was built from. */
  source?: string;
  command: string;
  totalMs: number;
  /** Sampled time the main thread was idle (absent in older data: then read from `top`). */
  idleMs?: number;
  top: { name: string; location: string; selfMs: number; percent: number }[];
  byFile: { location: string; selfMs: number; percent: number }[];
}
