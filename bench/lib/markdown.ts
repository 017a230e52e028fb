import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { MachineInfo } from "./machine.js";
import type { ProfileResult, ScenarioResult } from "./results.js";
import { formatNumber } from "./stats.js";

/** One invocation of `npm run bench`. */
export interface RunRecord {
  command: string;
  backend: string;
  startedAt: string;
  totalS: number;
  quick: boolean;
  service: string;
  load: [number, number];
  cpuPressure: [number, number];
  /** The commit and the uncommitted changes in src/ that the service was built from. */
  source: string;
  scenarios: string[];
  machine: MachineInfo;
  notes: string[];
}

/** Everything docs/benchmarks.md is rendered from; kept in the file so later runs can merge into it. */
export interface BenchData {
  version: 1;
  runs: RunRecord[];
  /** Keyed `<backend>:<scenario id>`: the newest result of each scenario on each backend. */
  scenarios: Record<string, ScenarioResult>;
  /** Keyed `<backend>:<scenario id>`. */
  profiles: Record<string, ProfileResult>;
}

const DATA_START = "<!-- bench-data";
const DATA_END = "-->";
const COMMENTARY_START = "<!-- commentary:start -->";
const COMMENTARY_END = "<!-- commentary:end -->";

/** The data block and the hand-written commentary of an existing file (empty when there is none). */
export function readExisting(path: string): { data: BenchData; commentary: string } {
  const empty: BenchData = { version: 1, runs: [], scenarios: {}, profiles: {} };
  if (!existsSync(path)) return { data: empty, commentary: "" };
  const text = readFileSync(path, "utf8");
  const commentaryAt = text.indexOf(COMMENTARY_START);
  const commentaryEnd = text.indexOf(COMMENTARY_END);
  const commentary = commentaryAt >= 0 && commentaryEnd > commentaryAt ? text.slice(commentaryAt + COMMENTARY_START.length, commentaryEnd).trim() : "";
  const dataAt = text.lastIndexOf(DATA_START);
  if (dataAt < 0) return { data: empty, commentary };
  const json = text.slice(dataAt + DATA_START.length, text.indexOf(DATA_END, dataAt)).trim();
  try {
    const data = JSON.parse(json, reviveNumbers) as BenchData;
    return { data: data.version === 1 ? data : empty, commentary };
  } catch {
    return { data: empty, commentary };
  }
}

/** Adds a run's results; a scenario measured again replaces its older result on that backend. */
export function merge(data: BenchData, run: RunRecord, results: ScenarioResult[], profiles: ProfileResult[]): BenchData {
  const scenarios = { ...data.scenarios };
  for (const result of results) scenarios[`${result.backend}:${result.id}`] = result;
  const merged = { ...data.profiles };
  for (const profile of profiles) merged[`${profile.backend}:${profile.scenario}`] = profile;
  return { version: 1, runs: [...data.runs, run].slice(-24), scenarios, profiles: merged };
}

// JSON has no Infinity or NaN ("never happened", "not measured"): they are kept as strings.
function keepNumbers(_key: string, value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) return Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
  return value;
}

function reviveNumbers(_key: string, value: unknown): unknown {
  if (value === "Infinity") return Number.POSITIVE_INFINITY;
  if (value === "-Infinity") return Number.NEGATIVE_INFINITY;
  if (value === "NaN") return Number.NaN;
  return value;
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

function formatFigure(value: number, unit: string): string {
  if (unit === "bytes") return `${formatNumber(value / 1024)} KB`;
  return `${formatNumber(value)} ${unit}`;
}

export function renderTargets(results: readonly ScenarioResult[]): string {
  const lines = ["| target | backend | measured | ratio / value | bound | verdict |", "|---|---|---|---|---|---|"];
  for (const result of results) {
    for (const target of result.targets) {
      lines.push(
        `| ${cell(target.label)} | ${result.backend} | ${cell(target.measured)} | ${formatNumber(target.value)} | ${cell(target.threshold)} | ${target.met ? "MET" : "**MISSED**"} |`,
      );
    }
  }
  return lines.join("\n");
}

export function renderScenario(result: ScenarioResult): string {
  const out = [
    `### ${result.title} (${result.backend})`,
    "",
    `Measured ${result.startedAt.replace("T", " ").slice(0, 19)} UTC in ${result.durationS} s${result.source ? ` on ${result.source}` : ""}; load average ${result.load[0]} → ${result.load[1]}, CPU pressure ${result.cpuPressure[0]} % → ${result.cpuPressure[1]} % (share of time runnable tasks waited for a core).`,
    "",
    ...result.method.map((line) => `- ${line}`),
    "",
    "| figure | median | spread (min – max) | runs |",
    "|---|---|---|---|",
  ];
  for (const row of result.rows) {
    const { figure } = row;
    const runs = figure.runs.map((value) => formatNumber(figure.unit === "bytes" ? value / 1024 : value)).join(", ");
    // Infinity ("never happened") is a value here; only NaN (not measured) is left out of the spread.
    const measured = figure.runs.filter((value) => !Number.isNaN(value));
    const min = measured.length > 0 ? Math.min(...measured) : Number.NaN;
    const max = measured.length > 0 ? Math.max(...measured) : Number.NaN;
    out.push(`| ${cell(row.label)} | ${formatFigure(figure.median, figure.unit)} | ${formatFigure(min, figure.unit)} – ${formatFigure(max, figure.unit)} | ${runs} |`);
  }
  if (result.notes.length > 0) out.push("", ...result.notes.map((note) => `- ${note}`));
  return out.join("\n");
}

export function renderProfile(profile: ProfileResult): string {
  // Shares are of the time the main thread was busy: "(idle)" (waiting for I/O) is shown apart.
  const idleMs = profile.idleMs ?? profile.top.find((row) => row.name === "(idle)")?.selfMs ?? 0;
  const busyMs = profile.totalMs - idleMs;
  const share = (ms: number) => (busyMs > 0 ? ((ms / busyMs) * 100).toFixed(1) : "n/a");
  const top = profile.top.filter((row) => row.name !== "(idle)");
  const byFile = profile.byFile.filter((row) => row.location !== "(idle)");
  const out = [
    `### ${profile.scenario} (${profile.backend})`,
    "",
    `${profile.command}; ${formatNumber(profile.totalMs / 1000)} s of the service's main thread sampled (start-up included), of which ${formatNumber(idleMs / 1000)} s idle (waiting for I/O) and ${formatNumber(busyMs / 1000)} s busy; taken ${profile.takenAt.replace("T", " ").slice(0, 19)} UTC${profile.source ? ` on ${profile.source}` : ""}. Shares are of the busy time. Time in native code called from JavaScript (a SQLite statement, its fsync, a socket write) is counted to the calling function.`,
    "",
    "| # | function | where | self ms | % of busy |",
    "|---|---|---|---|---|",
    ...top.map((row, i) => `| ${i + 1} | \`${cell(row.name)}\` | ${cell(row.location)} | ${formatNumber(row.selfMs)} | ${share(row.selfMs)} |`),
    "",
    "Self time by file:",
    "",
    "| file | self ms | % of busy |",
    "|---|---|---|",
    ...byFile.map((row) => `| ${cell(row.location)} | ${formatNumber(row.selfMs)} | ${share(row.selfMs)} |`),
  ];
  return out.join("\n");
}

function renderMachine(machine: MachineInfo): string {
  const rows: [string, string][] = [
    ["CPU", `${machine.cores} × ${machine.cpuModel} (nproc ${machine.cores})`],
    ["RAM", `${machine.ramGiB} GiB`],
    ["kernel", machine.kernel],
    ["Node.js", machine.node],
    ["SQLite (better-sqlite3)", `${machine.sqlite} (better-sqlite3 ${machine.betterSqlite3})`],
    ["Fastify / undici", `${machine.fastify} / ${machine.undici}`],
    ["temp dir file system (SQLite files)", machine.tmpFilesystem],
  ];
  if (machine.postgres) {
    rows.push([
      "PostgreSQL",
      `${machine.postgres.version}, synchronous_commit=${machine.postgres.synchronousCommit}, fsync=${machine.postgres.fsync}, wal_sync_method=${machine.postgres.walSyncMethod}`,
    ]);
  }
  return ["| | |", "|---|---|", ...rows.map(([key, value]) => `| ${key} | ${cell(value)} |`)].join("\n");
}

const BACKEND_ORDER = ["sqlite", "postgres"];
const SCENARIO_ORDER = ["hot-document", "many-documents", "authors", "feed-fanout", "big-document", "restart", "editor-typing"];

function ordered(data: BenchData): ScenarioResult[] {
  return Object.values(data.scenarios).sort(
    (a, b) => BACKEND_ORDER.indexOf(a.backend) - BACKEND_ORDER.indexOf(b.backend) || SCENARIO_ORDER.indexOf(a.id) - SCENARIO_ORDER.indexOf(b.id),
  );
}

export function renderDocument(data: BenchData, commentary: string): string {
  const results = ordered(data);
  const latestByBackend = new Map<string, RunRecord>();
  for (const run of data.runs) latestByBackend.set(run.backend, run);
  const machines = [...latestByBackend.values()];
  const out = [
    "# Benchmarks",
    "",
    "Generated by `npm run bench` (bench/run.ts). Each run rewrites this file from the data block at its end and replaces the",
    "results of the scenarios it ran; the commentary section is kept as written. Every figure is the median of several runs, with",
    "the spread beside it, and every target is a ratio to a baseline measured in the same run on the same machine.",
    "",
    "## How to run",
    "",
    "```sh",
    "npm run bench                                                       # SQLite, every scenario (< 15 min)",
    "npm run bench -- --pg postgres://postgres@127.0.0.1:5432/test       # PostgreSQL (throw-away databases), plus the SQLite hot document for the ratio",
    "npm run bench -- --quick                                            # smoke test of the harness with small counts (< 3 min), writes nothing",
    "npm run bench -- --only hot-document,feed-fanout                    # some scenarios; the others keep their last results",
    "npm run bench -- --no-profile                                       # skip the service's CPU profiles",
    "npm run bench -- --render-only                                      # rewrite this file from its data block (after editing the commentary)",
    "```",
    "",
    "The service runs as its own process (`node dist/server.js` with the Node.js flags of `npm start`, if any, compiled into a temp directory) on a free loopback port with",
    "`LOG_LEVEL=warn`; load generators are separate processes (`node --import tsx bench/load/*.ts`) using keep-alive",
    "connections, one per client and no pipelining (undici pools; raw sockets for the authors and the open editors); baselines are bare Fastify",
    "servers in their own processes (bench/baselines/). On a machine with two CPUs or more, every server runs on the first CPU",
    "and every load generator on the second (`taskset`, all threads), so service figures are those of one core; each",
    "scenario's method notes say how its run was placed. Service CPU per accepted patch, per feed answer or per request is the",
    "server process's CPU time inside the measurement window divided by the count answered in it. All files live in one temp",
    "directory that is removed at the end; PostgreSQL runs get throw-away databases. The editor-typing scenario also builds the",
    "editor page and drives Debian's Chromium (`/usr/bin/chromium`, or `FOLIO_CHROMIUM`) through playwright-core, on the load side's CPU.",
    "",
    "## Runs",
    "",
    "| started (UTC) | command | service | source | total | load average start → end | CPU pressure start → end | scenarios |",
    "|---|---|---|---|---|---|---|---|",
    ...data.runs.map(
      (run) =>
        `| ${run.startedAt.replace("T", " ").slice(0, 19)} | \`${cell(run.command)}\` | ${cell(run.service)} | ${cell(run.source)} | ${formatNumber(run.totalS)} s | ${run.load[0]} → ${run.load[1]} | ${run.cpuPressure[0]} % → ${run.cpuPressure[1]} % | ${run.scenarios.join(", ")} |`,
    ),
    "",
    "## Machine",
    "",
    ...machines.flatMap((run) => [`As recorded by the latest ${run.backend} run:`, "", renderMachine(run.machine), ""]),
    "The machine is shared: other engineers ran builds and test suites during these runs (see the load averages; 2 cores).",
    "",
    "## Targets",
    "",
    renderTargets(results),
    "",
    "## Commentary",
    "",
    COMMENTARY_START,
    commentary,
    COMMENTARY_END,
    "",
    "## Results",
    "",
    ...results.flatMap((result) => [renderScenario(result), ""]),
    "## Where the service's CPU time goes",
    "",
    Object.keys(data.profiles).length === 0
      ? "No profile was taken (the run was started with `--no-profile`)."
      : "CPU profiles of the service (`node --cpu-prof`) during one extra, shorter run of hot-document and of authors in every run, and of each other scenario with a missed target when time was left, summarized by bench/lib/profile-summary.ts: the functions with the most self time (idle time shown apart), and self time per file. Only the Node.js process is profiled: PostgreSQL's own processes are not.",
    "",
    ...Object.values(data.profiles).flatMap((profile) => [renderProfile(profile), ""]),
    DATA_START,
    JSON.stringify(data, keepNumbers),
    DATA_END,
    "",
  ];
  return out.join("\n");
}

export function writeDocument(path: string, data: BenchData, commentary: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderDocument(data, commentary));
}
