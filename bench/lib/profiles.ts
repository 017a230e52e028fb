/**
 * The service's CPU profiles a run takes: always of the scenarios in {@link ALWAYS_PROFILED} (where
 * the CPU per patch and per feed answer goes), then, in a full run and while time is left, of each
 * other scenario with a missed target. Each is one extra, shorter run with the service under
 * `node --cpu-prof`, summarized by profile-summary.ts.
 */
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { BenchContext, Scenario } from "./context.js";
import { summarizeProfileFile } from "./profile-summary.js";
import type { ProfileResult, ScenarioResult } from "./results.js";

export const ALWAYS_PROFILED = ["hot-document", "authors"];

export interface ProfileOptions {
  scenarios: readonly Scenario[];
  results: readonly ScenarioResult[];
  quick: boolean;
  backend: string;
  source: string;
  tmp: string;
  /** performance.now() by which the whole run must be done. */
  globalDeadline: number;
  contextFor(budgetMs: number, label: string): BenchContext;
  log(message: string): void;
}

export async function takeProfiles(options: ProfileOptions): Promise<ProfileResult[]> {
  const { results, quick, log } = options;
  const always = results.filter((r) => ALWAYS_PROFILED.includes(r.id));
  // Quick runs only check that profiling works: no profiles of missed targets.
  const missed = quick ? [] : results.filter((r) => !ALWAYS_PROFILED.includes(r.id) && r.targets.some((t) => !t.met));
  const profiles: ProfileResult[] = [];
  for (const result of [...always, ...missed]) {
    const scenario = options.scenarios.find((s) => s.id === result.id);
    if (!scenario?.profile) continue;
    const remaining = options.globalDeadline - performance.now();
    if (remaining < (quick ? 15_000 : 30_000)) {
      log(`${result.id}: no time left for a profile (${Math.round(remaining / 1000)} s)`);
      continue;
    }
    const dir = join(options.tmp, `profile-${result.id}`);
    mkdirSync(dir, { recursive: true });
    log(`${result.id}: profiling the service`);
    try {
      const { command } = await scenario.profile(options.contextFor(Math.min(90_000, remaining - 5_000), `${result.id} (profile)`), dir);
      const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
      if (!file) throw new Error("the service wrote no .cpuprofile");
      const summary = summarizeProfileFile(join(dir, file));
      // BENCH_KEEP_PROFILES=<dir>: the .cpuprofile files are kept there (the temp directory is removed), for a closer look.
      const keep = process.env.BENCH_KEEP_PROFILES;
      if (keep) {
        mkdirSync(keep, { recursive: true });
        copyFileSync(join(dir, file), join(keep, `${options.backend}-${result.id}.cpuprofile`));
      }
      profiles.push({ scenario: result.id, backend: options.backend, takenAt: new Date().toISOString(), source: options.source, command, ...summary });
      log(`${result.id}: profile: ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${((summary.totalMs - summary.idleMs) / 1000).toFixed(1)} s busy; top: ${summary.top.filter((t) => t.name !== "(idle)").slice(0, 3).map((t) => `${t.name} ${t.selfMs.toFixed(0)} ms`).join(", ")}`);
    } catch (error) {
      log(`${result.id}: profile failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return profiles;
}
