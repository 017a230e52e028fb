/**
 * `npm run bench`: starts the service (and the bare Fastify baselines) as separate processes,
 * drives them from load-generator processes over loopback HTTP, prints a table and writes
 * docs/benchmarks.md. Flags: --pg URL, --quick, --only a,b, --out FILE, --no-profile, --tsx.
 * The servers run on one CPU and the load side on another when the machine has two (lib/pinning.ts);
 * the service is profiled in every run for hot-document and authors (lib/profiles.ts).
 * Diagnostics (not for published figures): BENCH_AUTHORS_LEVELS=400,1000 limits the authors
 * scenario to those N; BENCH_DEBUG=<path prefix> makes it log phase times and write per-patch logs.
 * BENCH_EDITORS_LEVELS=1000,10000 and BENCH_EDITORS_RUNS=n do the same for the open-editors scenario.
 * BENCH_KEEP_PROFILES=<dir> keeps the services' .cpuprofile files there; BENCH_SERVICE_NODE_FLAGS="--single-threaded-gc
 * --perf-basic-prof" starts the service with those Node.js flags instead of npm start's (for perf record).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { execFileSync } from "node:child_process";
import { cpuPressure, loadAverage, type BenchContext, type Scenario } from "./lib/context.js";
import { machineInfo } from "./lib/machine.js";
import { merge, readExisting, renderScenario, renderTargets, writeDocument, type RunRecord } from "./lib/markdown.js";
import { dropOrphans } from "./lib/postgres.js";
import { describePinning, pinSelf } from "./lib/pinning.js";
import { installCleanup, REPO_ROOT } from "./lib/processes.js";
import { takeProfiles } from "./lib/profiles.js";
import type { ProfileResult, ScenarioResult } from "./lib/results.js";
import { buildService, SERVICE_NODE_FLAGS, TSX_IMPORT } from "./lib/service.js";
import { abuse } from "./scenarios/abuse.js";
import { authors } from "./scenarios/authors.js";
import { bigDocument } from "./scenarios/big-document.js";
import { editorTyping } from "./scenarios/editor-typing.js";
import { encryptionCost } from "./scenarios/encryption-cost.js";
import { feedFanout } from "./scenarios/feed-fanout.js";
import { hotDocument, manyDocuments } from "./scenarios/hot-document.js";
import { metricsOverhead } from "./scenarios/metrics-overhead.js";
import { openEditors } from "./scenarios/open-editors.js";
import { restart } from "./scenarios/restart.js";

const SCENARIOS: Scenario[] = [hotDocument, manyDocuments, metricsOverhead, authors, openEditors, feedFanout, bigDocument, restart, encryptionCost, abuse, editorTyping];
/**
 * The whole run stays under 15 minutes (3 in quick mode); the profiles get what is left. A scenario
 * whose own budget is larger (open-editors, with the peers beside Folio: 25 minutes) extends it.
 */
const TOTAL_BUDGET_S = { full: 870, quick: 175 };

const { values } = parseArgs({
  options: {
    pg: { type: "string" },
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    out: { type: "string" },
    "no-profile": { type: "boolean", default: false },
    tsx: { type: "boolean", default: false },
    "render-only": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

if (values.help) {
  process.stdout.write(
    "npm run bench -- [--pg URL] [--quick] [--only <scenario,...>] [--out FILE] [--no-profile] [--tsx] [--render-only]\n" +
      `scenarios: ${SCENARIOS.map((s) => s.id).join(", ")}\n`,
  );
  process.exit(0);
}

// --render-only: rewrite the document from its own data block (after editing the commentary), measuring nothing.
if (values["render-only"]) {
  const path = values.out ?? join(REPO_ROOT, "docs/benchmarks.md");
  const existing = readExisting(path);
  writeDocument(path, existing.data, existing.commentary);
  process.stdout.write(`rendered ${path}\n`);
  process.exit(0);
}

const quick = values.quick;
const selected = values.only ? values.only.split(",").map((id) => id.trim()) : SCENARIOS.map((s) => s.id);
for (const id of selected) {
  if (!SCENARIOS.some((s) => s.id === id)) {
    process.stderr.write(`unknown scenario "${id}"; known: ${SCENARIOS.map((s) => s.id).join(", ")}\n`);
    process.exit(2);
  }
}
const outPath = values.out ?? (quick ? undefined : join(REPO_ROOT, "docs/benchmarks.md"));
const backend = values.pg ? "postgres" : "sqlite";
const started = performance.now();
const largestBudgetS = Math.max(0, ...SCENARIOS.filter((s) => selected.includes(s.id)).map((s) => (quick ? s.budgetS.quick : s.budgetS.full)));
const globalDeadline = started + Math.max(quick ? TOTAL_BUDGET_S.quick : TOTAL_BUDGET_S.full, largestBudgetS + 60) * 1000;
const tmp = mkdtempSync(join(tmpdir(), "folio-bench-"));
const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
installCleanup(removeTmp);
process.on("exit", removeTmp);

const log = (message: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);

/** The kernel's dirty page cache, in KiB (/proc/meminfo "Dirty"); NaN where it cannot be read. */
function dirtyKib(): number {
  try {
    return Number(/^Dirty:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** The commit the service was built from, and how many files of src/ differed from it. */
function describeSource(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
    const changed = execFileSync("git", ["status", "--porcelain", "src"], { cwd: REPO_ROOT, encoding: "utf8" }).split("\n").filter(Boolean).length;
    return changed > 0 ? `${head} + ${changed} uncommitted file(s) in src/ (others' work in progress)` : head;
  } catch {
    return "unknown";
  }
}

async function main(): Promise<void> {
  const loadAtStart = loadAverage();
  const pressureAtStart = cpuPressure();
  const source = describeSource();
  log(`backend ${backend}${quick ? " (quick)" : ""}; scenarios ${selected.join(", ")}; temp dir ${tmp}`);
  if (values.pg) {
    const orphans = await dropOrphans(values.pg);
    if (orphans.length > 0) log(`dropped databases left by killed runs: ${orphans.join(", ")}`);
  }
  const machine = await machineInfo(tmp, values.pg);
  const building = values.tsx
    ? Promise.resolve({ mode: "tsx" as const, entryArgs: ["--import", TSX_IMPORT, join(REPO_ROOT, "src/server.ts")], buildMs: 0, note: "--tsx: the service ran from source" })
    : buildService(tmp);
  // Data generation overlaps the build (tsc runs in a child process); measurements wait for both.
  const preparing: Promise<unknown>[] = [];
  for (const scenario of SCENARIOS.filter((s) => selected.includes(s.id))) {
    const prepared = scenario.prepare?.({ backend, quick, tmp, ...(values.pg ? { pgUrl: values.pg } : {}) });
    // A failure surfaces in the scenario's run().
    if (prepared) preparing.push(prepared.catch(() => undefined));
  }
  const build = await building;
  await Promise.all(preparing);
  // The generated data (over a GB for the restart scenario) may sit in the OS's cache as dirty pages:
  // it is written out here, so that its writeback never overlaps a measurement (in the runs of
  // 2026-11-24 there was none left by then).
  const dirtyBefore = dirtyKib();
  const syncStarted = performance.now();
  execFileSync("sync", { timeout: 300_000 });
  log(`data generated; ${Math.round(dirtyBefore / 1024)} MiB of dirty pages written back in ${((performance.now() - syncStarted) / 1000).toFixed(1)} s before measuring`);
  // From here on this process is load-side work (IPC, /proc sampling): off the servers' CPU.
  pinSelf();
  log(describePinning());
  log(`source: ${source}`);
  log(`service: ${build.mode}${build.mode === "dist" ? ` (compiled in ${(build.buildMs / 1000).toFixed(1)} s)` : ""}${build.note ? `; ${build.note}` : ""}`);

  /** What a scenario (or its profile) gets: `budgetMs` from now at most, and its own log prefix. */
  const contextFor = (budgetMs: number, label: string): BenchContext => ({
    backend,
    ...(values.pg ? { pgUrl: values.pg } : {}),
    quick,
    tmp,
    build,
    deadline: Math.min(performance.now() + budgetMs, globalDeadline),
    log: (message) => log(`${label}: ${message}`),
  });

  const results: ScenarioResult[] = [];
  const failures: string[] = [];
  for (const scenario of SCENARIOS.filter((s) => selected.includes(s.id))) {
    const budget = (quick ? scenario.budgetS.quick : scenario.budgetS.full) * 1000;
    const context = contextFor(budget, scenario.id);
    // What the previous scenario wrote is written back before this one measures, too.
    execFileSync("sync", { timeout: 300_000 });
    log(`${scenario.id}: start (budget ${budget / 1000} s)`);
    try {
      const result = { ...(await scenario.run(context)), source };
      results.push(result);
      log(`${scenario.id}: done in ${result.durationS} s`);
      process.stdout.write(`\n${renderScenario(result)}\n`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failures.push(`${scenario.id}: ${message.split("\n")[0]}`);
      log(`${scenario.id}: FAILED: ${message}`);
    }
  }

  const profiles: ProfileResult[] = values["no-profile"]
    ? []
    : await takeProfiles({ scenarios: SCENARIOS, results, quick, backend, source, tmp, globalDeadline, contextFor, log });

  const totalS = Math.round((performance.now() - started) / 100) / 10;
  process.stdout.write(`\n## Targets\n\n${renderTargets(results)}\n\nTotal time: ${totalS} s\n`);
  if (failures.length > 0) process.stdout.write(`\nFailed scenarios:\n${failures.map((f) => `- ${f}`).join("\n")}\n`);

  if (outPath && results.length > 0) {
    const run: RunRecord = {
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
      backend,
      startedAt: new Date(performance.timeOrigin + started).toISOString(),
      totalS,
      quick,
      service: build.mode === "dist" ? `node ${[...SERVICE_NODE_FLAGS, ""].join(" ")}dist/server.js (compiled by tsc)` : "tsx src/server.ts",
      load: [loadAtStart, loadAverage()],
      cpuPressure: [pressureAtStart, cpuPressure()],
      source,
      scenarios: results.map((r) => r.id),
      machine,
      notes: [...(build.note ? [build.note] : []), ...failures],
    };
    const existing = readExisting(outPath);
    writeDocument(outPath, merge(existing.data, run, results, profiles), existing.commentary);
    log(`wrote ${outPath}`);
  }
  if (failures.length > 0) process.exitCode = 1;
}

main()
  .catch((error: unknown) => {
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  })
  .finally(() => {
    removeTmp();
  });
