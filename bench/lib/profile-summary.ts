/**
 * Summarizes a V8 .cpuprofile (as written by `node --cpu-prof`): the functions with the most self
 * time, and self time per file. Usable as a script: `tsx bench/lib/profile-summary.ts <file> [count]`.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  top: { name: string; location: string; selfMs: number; percent: number }[];
  byFile: { location: string; selfMs: number; percent: number }[];
}

/** A short location: the package for node_modules, the path inside the repository, or node's own module. */
function shortFile(url: string): string {
  if (url === "") return "(native / V8)";
  const path = url.replace(/^file:\/\//, "");
  const inModules = path.lastIndexOf("/node_modules/");
  if (inModules >= 0) {
    const rest = path.slice(inModules + "/node_modules/".length).split("/");
    const name = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
    return `${name}: ${rest.slice(rest[0]!.startsWith("@") ? 2 : 1).join("/")}`;
  }
  const at = Math.max(path.indexOf("/dist/"), path.indexOf("/src/"));
  return at >= 0 ? path.slice(at + 1) : path;
}

/** The top `count` functions by self time ("(idle)" kept, so that busy and idle time can both be shown). */
export function summarizeProfile(profile: CpuProfile, count = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    total += delta;
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + delta);
  });
  const byFunction = new Map<string, { name: string; location: string; selfMs: number }>();
  const byFile = new Map<string, number>();
  for (const [id, selfMs] of selfByNode) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const file = shortFile(frame.url);
    const name = frame.functionName || "(anonymous)";
    const location = frame.url === "" ? file : `${file}:${frame.lineNumber + 1}`;
    const key = `${name}\u0000${location}`;
    const entry = byFunction.get(key) ?? { name, location, selfMs: 0 };
    entry.selfMs += selfMs;
    byFunction.set(key, entry);
    const fileKey = frame.url === "" ? name.startsWith("(") ? name : "(native / V8)" : file;
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + selfMs);
  }
  const idleMs = [...byFunction.values()].filter((entry) => entry.name === "(idle)").reduce((sum, entry) => sum + entry.selfMs, 0);
  const percent = (ms: number) => (total > 0 ? (ms / total) * 100 : 0);
  return {
    totalMs: total,
    idleMs,
    top: [...byFunction.values()]
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, count + 1)
      .map((entry) => ({ ...entry, percent: percent(entry.selfMs) })),
    byFile: [...byFile.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([location, selfMs]) => ({ location, selfMs, percent: percent(selfMs) })),
  };
}

export function summarizeProfileFile(path: string, count = 15): ProfileSummary {
  return summarizeProfile(JSON.parse(readFileSync(path, "utf8")) as CpuProfile, count);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write("usage: tsx bench/lib/profile-summary.ts <file.cpuprofile> [count]\n");
    process.exit(2);
  }
  const summary = summarizeProfileFile(file, Number(process.argv[3] ?? 15));
  process.stdout.write(`total ${(summary.totalMs / 1000).toFixed(2)} s sampled, ${(summary.idleMs / 1000).toFixed(2)} s of it idle\n\n`);
  process.stdout.write(`${"self ms".padStart(10)} ${"%".padStart(6)}  function (location)\n`);
  for (const row of summary.top) {
    process.stdout.write(`${row.selfMs.toFixed(1).padStart(10)} ${row.percent.toFixed(1).padStart(6)}  ${row.name} (${row.location})\n`);
  }
  process.stdout.write(`\n${"self ms".padStart(10)} ${"%".padStart(6)}  file\n`);
  for (const row of summary.byFile) process.stdout.write(`${row.selfMs.toFixed(1).padStart(10)} ${row.percent.toFixed(1).padStart(6)}  ${row.location}\n`);
}
