/**
 * A/B comparison of two services on the hot-document load, for effects too small for the full
 * benchmark's spread: side A and side B run in alternating phases against one load generator
 * (50 closed-loop clients, one document), so both share the machine's noise, and the tool prints
 * each side's rate and server CPU per accepted patch, run by run, with the medians and the paired
 * ratios B / A. Not part of `npm run bench`.
 *
 *   npx tsx bench/ab.ts [--a REF] [--b REF] [--a-flags "..."] [--b-flags "..."] [--runs 6] [--pg URL] [--documents N]
 *
 * A side is built from a git ref (its committed src/, extracted with `git archive`) or, without one,
 * from the working tree; its Node.js flags are those of `npm start` unless given.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { checkDeadline, type BenchContext } from "./lib/context.js";
import { describePinning, pinSelf } from "./lib/pinning.js";
import { installCleanup, REPO_ROOT } from "./lib/processes.js";
import { buildService, SERVICE_NODE_FLAGS, startService, type ServiceUnderTest } from "./lib/service.js";
import { median } from "./lib/stats.js";
import { cpuPerRequestUs, runClosedLoop, type ClosedLoopRun, type PlannedPhase } from "./scenarios/closed-loop-runs.js";

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    "a-flags": { type: "string" },
    "b-flags": { type: "string" },
    runs: { type: "string", default: "6" },
    pg: { type: "string" },
    documents: { type: "string", default: "1" },
  },
});
const runs = Math.min(20, Math.max(1, Number(values.runs)));
const documents = Math.min(1000, Math.max(1, Number(values.documents)));
const tmp = mkdtempSync(join(tmpdir(), "folio-ab-"));
const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
installCleanup(removeTmp);
process.on("exit", removeTmp);
const log = (message: string) => process.stderr.write(`${message}\n`);

/** The sources of `ref` in a directory of their own, or the working tree without one. */
function sourcesOf(ref: string | undefined, name: string): string {
  if (!ref) return REPO_ROOT;
  const root = join(tmp, `${name}-src`);
  mkdirSync(root, { recursive: true });
  const archive = execFileSync("git", ["archive", ref, "src", "tsconfig.json", "tsconfig.build.json", "package.json"], { cwd: REPO_ROOT, maxBuffer: 256 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", root], { input: archive });
  return root;
}

/** Sums of the service's counters (every label set added up), from its /metrics. */
async function counters(origin: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const sums = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^([a-z_]+)(?:\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (!match) continue;
    sums.set(match[1]!, (sums.get(match[1]!) ?? 0) + Number(match[2]));
    const kind = /kind="([a-z]+)"/.exec(line)?.[1];
    if (match[1] === "nodejs_gc_duration_seconds_sum" && kind) sums.set(`gc:${kind}`, Number(match[2]));
  }
  return sums;
}

const flagsOf = (given: string | undefined) => (given === undefined ? SERVICE_NODE_FLAGS : given.split(/\s+/).filter(Boolean));
const sides = [
  { key: "A", ref: values.a, flags: flagsOf(values["a-flags"]) },
  { key: "B", ref: values.b, flags: flagsOf(values["b-flags"]) },
];
const backend = values.pg ? "postgres" : "sqlite";
const builds = await Promise.all(sides.map((side) => buildService(tmp, { root: sourcesOf(side.ref, side.key), name: `app-${side.key}` })));
pinSelf();
log(describePinning());
const context: BenchContext = {
  backend,
  ...(values.pg ? { pgUrl: values.pg } : {}),
  quick: false,
  tmp,
  build: builds[0]!,
  deadline: performance.now() + (runs * 2 * 35 + 120) * 1000,
  log,
};
const servers: ServiceUnderTest[] = [];
try {
  for (const [i, side] of sides.entries()) {
    const build = builds[i]!;
    log(`${side.key}: ${side.ref ?? "working tree"}, ${build.mode}${build.note ? ` (${build.note})` : ""}, flags ${side.flags.join(" ") || "(none)"}`);
    servers.push(await startService({ build, backend, tmp, nodeFlags: side.flags, ...(values.pg ? { pgUrl: values.pg } : {}) }));
    log(`${side.key}: pid ${servers[i]!.pid}`);
  }
  checkDeadline(context, "start-up");
  const before = await Promise.all(servers.map((server) => counters(server.origin)));
  const phases: PlannedPhase[] = [];
  // ABBA order: a drift of the machine over the run weighs on both sides alike.
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) phases.push({ key: sides[i]!.key, server: servers[i]!, mode: "patch", documents });
  }
  const measured = await runClosedLoop(context, phases, { clients: 50, warmupMs: 700, measureMs: 3000 });
  const bySide = (key: string) => measured.filter((phase) => phase.key === key);
  const row = (list: ClosedLoopRun[], pick: (run: ClosedLoopRun) => number) => list.map((run) => pick(run).toFixed(0)).join(" ");
  for (const side of sides) {
    const list = bySide(side.key);
    log(`${side.key}: patches/s ${row(list, (r) => r.ratePerSecond)} (median ${median(list.map((r) => r.ratePerSecond)).toFixed(0)}); CPU µs/patch ${row(list, cpuPerRequestUs)} (median ${median(list.map(cpuPerRequestUs)).toFixed(1)})`);
  }
  const after = await Promise.all(servers.map((server) => counters(server.origin)));
  for (const [i, side] of sides.entries()) {
    const delta = (name: string) => (after[i]!.get(name) ?? 0) - (before[i]!.get(name) ?? 0);
    const patches = delta("folio_content_patches_total");
    log(
      `${side.key}, whole run: ${patches} patches; GC ${((delta("nodejs_gc_duration_seconds_sum") * 1e6) / patches).toFixed(1)} µs/patch ` +
        `(${["minor", "major", "incremental", "weakcb"].map((kind) => `${kind} ${((delta(`gc:${kind}`) * 1e6) / patches).toFixed(1)}`).join(", ")}); ` +
        `${(patches / delta("folio_commit_batch_size_count")).toFixed(1)} patches per commit, ` +
        `${((delta("folio_commit_duration_seconds_sum") * 1000) / delta("folio_commit_duration_seconds_count")).toFixed(2)} ms per batch write`,
    );
  }
  const a = bySide("A");
  const b = bySide("B");
  const rateRatios = b.map((run, i) => run.ratePerSecond / a[i]!.ratePerSecond);
  const cpuRatios = b.map((run, i) => cpuPerRequestUs(run) / cpuPerRequestUs(a[i]!));
  log(`B / A rate, paired: ${rateRatios.map((v) => v.toFixed(3)).join(" ")} (median ${median(rateRatios).toFixed(3)})`);
  log(`B / A CPU per patch, paired: ${cpuRatios.map((v) => v.toFixed(3)).join(" ")} (median ${median(cpuRatios).toFixed(3)})`);
} finally {
  for (const server of servers) await server.close().catch(() => undefined);
}
