/**
 * The editor-typing scenario's figures, targets and notes (editor-typing.ts), in the shape every
 * scenario reports (bench/lib/results.ts). Latency percentiles are over every key of a cell pooled;
 * the runs beside them are the same percentile of each round's keys alone, to show the spread.
 */
import type { ScenarioResult } from "../lib/results.js";
import { formatNumber, median, percentile, type Figure } from "../lib/stats.js";
import { PACES } from "../lib/typing-session.js";
import type { ProfiledCell } from "./editor-typing-profile.js";
import type { Cell, Plan } from "./editor-typing.js";

/** The issue's bound: the 5,000-line document's median and p90 at most 1.5 × the 20-line one's. */
const MAX_RATIO = 1.5;

export interface TypingData {
  cells: Cell[];
  profiled: ProfiledCell[];
  rounds: number;
  placement: string;
  bytes: Map<number, number>;
  converged: string[];
  plan: Plan;
  seed: number;
  buildMs: number;
  chromium: string;
}

const pooled = (cell: Cell) => cell.blocks.flatMap((block) => block.keys.map((key) => key.latencyMs));

/** The cell's blocks in four groups in the order typed (as equal as the count allows). */
function quarters<T>(blocks: readonly T[]): T[][] {
  const groups = Math.min(4, blocks.length);
  return Array.from({ length: groups }, (_, g) => blocks.slice(Math.round((g * blocks.length) / groups), Math.round(((g + 1) * blocks.length) / groups)));
}

type Block = Cell["blocks"][number];

/** A pooled percentile with each quarter's own beside it. */
function latencyFigure(cell: Cell, p: number, of: (block: Block) => number[] = (b) => b.keys.map((k) => k.latencyMs)): Figure {
  const runs = quarters(cell.blocks).map((group) => percentile(group.flatMap(of), p));
  const finite = runs.filter(Number.isFinite);
  return { median: percentile(cell.blocks.flatMap(of), p), min: Math.min(...finite), max: Math.max(...finite), runs, unit: "ms" };
}

/** A time per key: the median of the blocks, each quarter's total / its keys beside it. */
function perKeyFigure(cell: Cell, value: (block: Block) => number): Figure {
  const runs = quarters(cell.blocks).map((group) => group.reduce((sum, b) => sum + value(b), 0) / group.reduce((sum, b) => sum + b.keys.length, 0));
  return { median: median(cell.blocks.map((b) => value(b) / b.keys.length)), min: Math.min(...runs), max: Math.max(...runs), runs, unit: "ms" };
}

export function reportTyping(result: ScenarioResult, data: TypingData): void {
  const { plan } = data;
  const size = (n: number) => `${n.toLocaleString("en-US")} lines`;
  const [small, big] = [...data.bytes.keys()].sort((a, b) => a - b) as [number, number];
  result.method.push(
    data.placement,
    `The service compiled as in every scenario, with fresh ${result.backend} storage; the editor page built by scripts/build-web.mjs (minified, as shipped; ${(data.buildMs / 1000).toFixed(1)} s, overlapped with the service's build) and served by the service. ${data.chromium === "" ? "Chromium" : `Chromium ${data.chromium}`} (Debian's, headless, launched by playwright-core with the E2E tests' flags: no GPU, so frames are rasterized in software), one browser context per document, viewport 1100 × 720, each page opened on /d/<id> and waited until it says "synced".`,
    `Two documents created through the API: an outline of ${size(small)} (${formatNumber(data.bytes.get(small)! / 1024)} KB) and one of ${size(big)} (${formatNumber(data.bytes.get(big)! / 1024)} KB), lines of about 70 characters (indented nodes, a third with a check box, one in ten with a ticket link; seed ${data.seed}). In both the keys go to the end of the middle line (line ${small / 2 + 1} and line ${(big / 2 + 1).toLocaleString("en-US")}), the same short node, put there by a click and End.`,
    `Keys: lower-case words and spaces, sent as CDP Input.dispatchKeyEvent (keyDown with its text, keyUp) on the typist's clock without waiting for the page (bench/lib/key-probe.ts), at ${PACES.map((p) => p.label).join(" and at ")} (uniform, seeded). ${plan.warmupKeys} unmeasured warm-up keys per page first. Then ${data.rounds} round(s): in each, one block of ${plan.blocks.steady.keys} keys at the steady pace per document, and in every ${plan.blocks.fast.every === 2 ? "other" : `${plan.blocks.fast.every}th`} round one of ${plan.blocks.fast.keys} keys at the fast pace per document, the documents alternating block by block (which goes first changes each time), so that a burst of the machine's other work falls on both. After each block the page is left to paint every key and to sync (its indicator says "synced") before the next.`,
    "Key → paint, per key, measured in the page: from the keydown event's timeStamp (when the browser received the key, so time queued behind the page's own work counts) to the end of the first frame whose rendering shows the character: each animation frame after the key checks the cursor's line for it, and a MessageChannel message posted from that frame's requestAnimationFrame callback runs right after the frame's style, layout and paint; its performance.now() is the paint time. Raster and display, off the main thread, are not counted. The Event Timing API (PerformanceEventTiming) was not used: it reports only events of 16 ms or more, rounded to 8 ms, which would leave out the fast keys this figure is about. Input delay: keydown timeStamp → the capture-phase keydown listener.",
    "Key → paint and input delay: the median column is the percentile over every key of the cell, all rounds pooled; the runs are the same percentile over each quarter of those keys in the order typed (each about 25 % of the run's time, so they show how steady the machine was). Ratio targets compare the pooled figures. Per-key times: the median of the blocks, the runs per quarter.",
    "Page main thread per key: CDP Performance.getMetrics on the page, TaskDuration (every task of the renderer's main thread: script, style, layout, paint, the sync's requests and answers) and ScriptDuration, in thread CPU time (timeDomain threadTicks), over a block from its first key until it is painted and synced, divided by its keys.",
    `Client library CPU per key: one more block per document and pace after the rounds (${plan.profileKeys.steady} keys at the steady pace, ${plan.profileKeys.fast} at the fast one), with V8's sampling profiler on the page (CDP Profiler, 100 µs); frames mapped to source files through the bundle's source map; the library's time is that of every sample with a frame of src/client/ on its stack (LiveDocument.edit from the editor's binding, the patch and feed cycles, and everything they call: CodeMirror's ChangeSet, src/core), as a share of all samples in JavaScript and GC, times the block's ScriptDuration (thread CPU), divided by its keys. The share, not the sampled time itself: the sampler runs on wall-clock time, so a sample taken while the thread waits for a CPU (other processes on its core, the machine being shared) counts to the function it was in, and the sampled milliseconds (in the notes) overstate CPU on a busy machine. "(program)" samples are left out (on the renderer's main thread they are mostly the thread waiting for its next task). These blocks' latencies are not in the figures above (the profiler slows the page).`,
    `Every key is checked at the end: the service's text of each document must equal the generated document with every key typed into it (warm-up and profiled blocks included); the scenario fails otherwise, and on any error in a page.`,
  );
  for (const pace of PACES) {
    for (const n of [small, big]) {
      const cell = data.cells.find((c) => c.size === n && c.pace === pace.id)!;
      const label = `${size(n)}, ${pace.label}`;
      result.rows.push({ label: `${label}: key → paint p50`, figure: latencyFigure(cell, 50) });
      result.rows.push({ label: `${label}: key → paint p90`, figure: latencyFigure(cell, 90) });
      result.rows.push({ label: `${label}: input delay p90`, figure: latencyFigure(cell, 90, (b) => b.keys.map((k) => k.inputDelayMs)) });
      result.rows.push({ label: `${label}: page main thread per key (TaskDuration)`, figure: perKeyFigure(cell, (b) => b.times.taskMs) });
      result.rows.push({ label: `${label}: page script per key (ScriptDuration)`, figure: perKeyFigure(cell, (b) => b.times.scriptMs) });
      const profiled = data.profiled.find((c) => c.size === n && c.pace === pace.id);
      // The library's share of the sampled JavaScript time, of the block's script time (thread CPU).
      const library = profiled ? ((profiled.profile.libraryMs / profiled.profile.scriptMs) * profiled.block.times.scriptMs) / profiled.keys : Number.NaN;
      result.rows.push({ label: `${label}: client library CPU per key (profiled block)`, figure: { median: library, min: library, max: library, runs: [library], unit: "ms" } });
    }
  }
  for (const pace of PACES) {
    const cellOf = (n: number) => data.cells.find((c) => c.size === n && c.pace === pace.id)!;
    for (const p of [50, 90]) {
      const smallValue = percentile(pooled(cellOf(small)), p);
      const bigValue = percentile(pooled(cellOf(big)), p);
      result.targets.push({
        id: `typing-${pace.id}-p${p}`,
        label: `editor typing: key → paint p${p} at ${pace.label}, ${size(big)} vs ${size(small)}`,
        measured: `${bigValue.toFixed(1)} / ${smallValue.toFixed(1)} ms`,
        value: bigValue / smallValue,
        threshold: `≤ ${MAX_RATIO}`,
        met: bigValue / smallValue <= MAX_RATIO,
      });
    }
  }
  for (const cell of data.cells) {
    const keys = cell.blocks.flatMap((b) => b.keys);
    const never = keys.filter((k) => !Number.isFinite(k.latencyMs)).length;
    const firstFrame = keys.filter((k) => k.frames === 1).length;
    const late = Math.max(...cell.blocks.map((b) => b.lateMaxMs));
    result.notes.push(
      `${size(cell.size)}, ${PACES.find((p) => p.id === cell.pace)!.label}: ${keys.length} keys; max key → paint ${formatNumber(Math.max(...keys.map((k) => k.latencyMs)))} ms; ${never} never painted; ${formatNumber((firstFrame / keys.length) * 100)} % shown in the first frame after the key; keys sent at most ${formatNumber(late)} ms behind the typist's clock.`,
    );
  }
  for (const profiled of data.profiled) {
    const { profile } = profiled;
    const list = (rows: Array<{ name?: string; file?: string; ms: number }>, count: number) =>
      rows
        .slice(0, count)
        .map((row) => `${row.name ?? row.file} ${formatNumber(row.ms / profiled.keys)}`)
        .join("; ");
    result.notes.push(
      `Profile, ${size(profiled.size)} at ${PACES.find((p) => p.id === profiled.pace)!.label} (${profiled.keys} keys; ms per key): main thread ${formatNumber(profiled.block.times.taskMs / profiled.keys)} (TaskDuration, thread CPU), script ${formatNumber(profiled.block.times.scriptMs / profiled.keys)} (ScriptDuration); sampled (wall clock) in JavaScript and GC ${formatNumber(profile.scriptMs / profiled.keys)}, of which under the client library ${formatNumber(profile.libraryMs / profiled.keys)}. Sampled self time by file: ${list(profile.byFile, 6)}. By function: ${list(profile.byFunction, 6)}. Library entry points (inclusive): ${list(profile.libraryEntries, 4)}. The repository's functions by inclusive time: ${list(profile.ownInclusive, 10)}.`,
    );
  }
  result.notes.push(...data.converged.map((line) => `Converged: ${line}.`));
}
