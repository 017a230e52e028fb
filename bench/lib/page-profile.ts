/**
 * Where the editor page's main thread spends its time (bench/scenarios/editor-typing.ts): the
 * renderer's own counters (CDP Performance.getMetrics) and V8's sampling profiler (CDP Profiler),
 * its frames mapped through the bundle's source map to the repository's files.
 */
import { SourceMap } from "node:module";
import { relative, resolve } from "node:path";
import type { CDPSession } from "playwright-core";
import { REPO_ROOT } from "./processes.js";

/** The renderer main thread's time, ms, from CDP Performance.getMetrics (cumulative since Performance.enable). */
export interface MainThreadTimes {
  /** Every task the main thread ran (script, style, layout, paint, …). */
  taskMs: number;
  scriptMs: number;
  layoutMs: number;
  styleMs: number;
}

export async function mainThreadTimes(session: CDPSession): Promise<MainThreadTimes> {
  const { metrics } = await session.send("Performance.getMetrics");
  const value = (name: string) => (metrics.find((m) => m.name === name)?.value ?? Number.NaN) * 1000;
  return { taskMs: value("TaskDuration"), scriptMs: value("ScriptDuration"), layoutMs: value("LayoutDuration"), styleMs: value("RecalcStyleDuration") };
}

export function timesBetween(before: MainThreadTimes, after: MainThreadTimes): MainThreadTimes {
  return { taskMs: after.taskMs - before.taskMs, scriptMs: after.scriptMs - before.scriptMs, layoutMs: after.layoutMs - before.layoutMs, styleMs: after.styleMs - before.styleMs };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Starts V8's sampler on the page's main thread (every `intervalUs`). */
export async function startProfiler(session: CDPSession, intervalUs = 100): Promise<void> {
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: intervalUs });
  await session.send("Profiler.start");
}

export async function stopProfiler(session: CDPSession): Promise<CpuProfile> {
  const { profile } = await session.send("Profiler.stop");
  await session.send("Profiler.disable");
  return profile;
}

export interface PageProfile {
  /** Sampled time, ms. */
  totalMs: number;
  /**
   * Samples in JavaScript or the garbage collector, ms: not "(idle)" nor "(program)". A renderer's
   * main thread waiting for its next task is sampled as "(program)" here (as is native work outside
   * any JavaScript call, style and layout among it), so "(program)" is no measure of work and is left out.
   */
  scriptMs: number;
  /** Samples with a frame of the client library (src/client/) on their stack: its calls and all they call. */
  libraryMs: number;
  /** Self time by file (repository path, npm package, or V8's own entries). */
  byFile: Array<{ file: string; ms: number }>;
  /** Self time by function (original name from the source map, file:line). */
  byFunction: Array<{ name: string; ms: number }>;
  /** Inclusive time of the client library's functions that the page calls into (outermost src/client frame). */
  libraryEntries: Array<{ name: string; ms: number }>;
  /** Inclusive time of the repository's own functions (src/, web/): each sample counted once for every such function on its stack. */
  ownInclusive: Array<{ name: string; ms: number }>;
}

/** The name a function is declared with on a source line: `name(`, `function name`, `const name = (…) =>`. */
function declaredName(line: string): string {
  const match = /(?:const|let|var)\s+([\w$]+)\s*=|function\s*\*?\s*([\w$]+)|([\w$]+)\s*(?:<[^>]*>)?\s*\(/.exec(line);
  return match?.[1] ?? match?.[2] ?? match?.[3] ?? "";
}

/**
 * The bundle's frames in the repository's terms: maps a (0-based) line and column of the minified
 * script to its source file (repository path, or the npm package's path), line and function name (the
 * source map's, else the one declared on that source line).
 */
export function sourceMapper(map: unknown, assetsDir: string): (line: number, column: number) => { file: string; line: number; name: string } | undefined {
  const payload = map as ConstructorParameters<typeof SourceMap>[0] & { sourcesContent?: string[] };
  const sourceMap = new SourceMap(payload);
  const lines = new Map<string, string[]>();
  const sourceLines = (source: string) => {
    let known = lines.get(source);
    if (!known) {
      const index = payload.sources.findIndex((s) => source === s || source.endsWith(s.replace(/^(\.\.\/)+/, "")));
      known = payload.sourcesContent?.[index]?.split("\n") ?? [];
      lines.set(source, known);
    }
    return known;
  };
  return (line, column) => {
    const entry = sourceMap.findEntry(line, column) as { originalSource?: string; originalLine?: number; name?: string };
    if (!entry.originalSource) return undefined;
    const path = relative(REPO_ROOT, resolve(assetsDir, entry.originalSource.replace(/^file:\/\//, "")));
    const modules = path.lastIndexOf("node_modules/");
    const file = modules >= 0 ? path.slice(modules + "node_modules/".length) : path;
    const originalLine = entry.originalLine ?? 0;
    const name = entry.name ?? declaredName(sourceLines(entry.originalSource)[originalLine] ?? "");
    return { file, line: originalLine + 1, name };
  };
}

const isLibrary = (file: string) => file.startsWith("src/client/");

/** Sums a profile's samples by file and function, and the time under the client library's frames. */
export function summarizePageProfile(profile: CpuProfile, scriptUrl: string, map: ReturnType<typeof sourceMapper>, top = 12): PageProfile {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const where = new Map<number, { file: string; name: string }>();
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    const mapped = frame.url.endsWith(scriptUrl) ? map(frame.lineNumber, frame.columnNumber) : undefined;
    const file = mapped?.file ?? (frame.url === "" ? `(${frame.functionName || "native"})` : frame.url.replace(/^https?:\/\/[^/]+/, ""));
    const name = mapped ? `${mapped.name || frame.functionName || "(anonymous)"} ${mapped.file}:${mapped.line}` : frame.functionName || file;
    where.set(node.id, { file, name });
  }
  /** The outermost src/client frame on a node's stack (memoized), or 0. */
  const entryOf = new Map<number, number>();
  const libraryEntry = (id: number): number => {
    const known = entryOf.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const above = up === undefined ? 0 : libraryEntry(up);
    const entry = above !== 0 ? above : isLibrary(where.get(id)!.file) ? id : 0;
    entryOf.set(id, entry);
    return entry;
  };
  const files = new Map<string, number>();
  const functions = new Map<string, number>();
  const entries = new Map<string, number>();
  const own = new Map<string, number>();
  const ownOnStack = (id: number): Set<string> => {
    const names = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = where.get(at)!;
      if (frame.file.startsWith("src/") || frame.file.startsWith("web/")) names.add(frame.name);
    }
    return names;
  };
  let totalMs = 0;
  let scriptMs = 0;
  let libraryMs = 0;
  const samples = profile.samples ?? [];
  samples.forEach((id, i) => {
    const ms = (profile.timeDeltas?.[i] ?? 0) / 1000;
    totalMs += ms;
    const node = byId.get(id);
    if (!node) return;
    if (["(idle)", "(program)", "(root)"].includes(node.callFrame.functionName)) return;
    scriptMs += ms;
    const { file, name } = where.get(id)!;
    files.set(file, (files.get(file) ?? 0) + ms);
    functions.set(name, (functions.get(name) ?? 0) + ms);
    for (const ownName of ownOnStack(id)) own.set(ownName, (own.get(ownName) ?? 0) + ms);
    const entry = libraryEntry(id);
    if (entry !== 0) {
      libraryMs += ms;
      const entryName = where.get(entry)!.name;
      entries.set(entryName, (entries.get(entryName) ?? 0) + ms);
    }
  });
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    totalMs,
    scriptMs,
    libraryMs,
    byFile: sorted(files).map(([file, ms]) => ({ file, ms })),
    byFunction: sorted(functions).map(([name, ms]) => ({ name, ms })),
    libraryEntries: sorted(entries).map(([name, ms]) => ({ name, ms })),
    ownInclusive: sorted(own).map(([name, ms]) => ({ name, ms })),
  };
}
