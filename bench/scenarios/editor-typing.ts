/**
 * Editor typing: key press to painted frame in the real editor page (Chromium, /d/<id>) on the real
 * service, in a 20-line and a 5,000-line document, at a steady and at a fast typist's pace; the
 * page's main-thread time and the client library's CPU per key (docs/benchmarks.md, "Editor typing").
 * How a key is timed: bench/lib/key-probe.ts. The documents and the cursor: bench/lib/typing-session.ts.
 */
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { beginResult, checkDeadline, type BenchContext, type Scenario } from "../lib/context.js";
import { buildPage, bundleFiles, launchChromium, pinChromium, servePageFrom } from "../lib/browser.js";
import { startService } from "../lib/service.js";
import { prng } from "../../test/support/prng.js";
import { offsets, outline, PACES, TypingTab, words, type BlockResult, type PaceId } from "../lib/typing-session.js";
import { profileBlocks, type ProfiledCell } from "./editor-typing-profile.js";
import { reportTyping } from "./editor-typing-report.js";

const SEED = 34;
const SIZES = [20, 5000] as const;
const LINE_WIDTH = 70;

/**
 * Short blocks, the two documents alternating block by block: a burst of the machine's other work
 * (it is shared) then falls on both. A steady block of 10 keys takes 2 s; a fast one of 20 keys, 0.8 s,
 * comes every other round.
 */
function planFor(quick: boolean) {
  return quick
    ? { rounds: 4, blocks: { steady: { keys: 6, every: 1 }, fast: { keys: 12, every: 2 } }, warmupKeys: 10, profileKeys: { steady: 8, fast: 20 } }
    : { rounds: 16, blocks: { steady: { keys: 10, every: 1 }, fast: { keys: 20, every: 2 } }, warmupKeys: 30, profileKeys: { steady: 25, fast: 60 } };
}
export type Plan = ReturnType<typeof planFor>;

/** One cell's blocks: a size at a pace, one block per round. */
export interface Cell {
  size: number;
  pace: PaceId;
  blocks: BlockResult[];
}

let page: Promise<{ outdir: string; buildMs: number }> | undefined;

async function createDocument(origin: string, title: string, lines: readonly string[]): Promise<string> {
  const response = await fetch(`${origin}/api/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title, content: lines.join("\n") }) });
  if (response.status !== 201) throw new Error(`creating "${title}": status ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function served(origin: string, id: string): Promise<string> {
  const response = await fetch(`${origin}/api/v1/documents/${id}`);
  if (response.status !== 200) throw new Error(`reading ${id}: status ${response.status}`);
  return ((await response.json()) as { content: string }).content;
}

async function measure(context: BenchContext, browser: Browser, origin: string, plan: Plan) {
  const random = prng(SEED);
  const tabs = new Map<number, TypingTab>();
  for (const size of SIZES) {
    const lines = outline(size, LINE_WIDTH, Math.floor(size / 2), random);
    const id = await createDocument(origin, `editor typing ${size}`, lines);
    tabs.set(size, await TypingTab.open(browser, origin, `${size.toLocaleString("en-US")} lines`, id, lines, Math.floor(size / 2)));
  }
  const placement = pinChromium();
  const bytes = new Map([...tabs].map(([size, tab]) => [size, Buffer.byteLength(tab.lines.join("\n"))]));
  const cells: Cell[] = PACES.flatMap((pace) => SIZES.map((size) => ({ size, pace: pace.id, blocks: [] as BlockResult[] })));
  const cell = (size: number, pace: PaceId) => cells.find((c) => c.size === size && c.pace === pace)!;
  try {
    // Warm-up (not counted): the page's code compiled by V8 and its caches filled, in both pages.
    for (const tab of tabs.values()) await tab.block(words(plan.warmupKeys, random), offsets(plan.warmupKeys, () => PACES[1].interval(random)));
    // Rounds: each pace in turn, the sizes in alternating order, so that the machine's noise hits both.
    let rounds = 0;
    const blocksDone = { steady: 0, fast: 0 };
    for (let round = 0; round < plan.rounds; round++) {
      const paces = PACES.filter((pace) => round % plan.blocks[pace.id].every === plan.blocks[pace.id].every - 1);
      const roundMs = paces.reduce((sum, pace) => sum + SIZES.length * (plan.blocks[pace.id].keys * (pace.id === "steady" ? 200 : 50) + 1500), 0);
      if (performance.now() + roundMs + 30_000 > context.deadline) break;
      for (const pace of paces) {
        const order = blocksDone[pace.id]++ % 2 === 0 ? SIZES : [...SIZES].reverse();
        for (const size of order) {
          checkDeadline(context, `round ${round + 1}`);
          const text = words(plan.blocks[pace.id].keys, random);
          cell(size, pace.id).blocks.push(await tabs.get(size)!.block(text, offsets(text.length, () => pace.interval(random))));
        }
      }
      rounds++;
      if (rounds % 4 === 0) context.log(`round ${rounds} of ${plan.rounds} done`);
    }
    if (rounds === 0) throw new Error("no round fitted in the time left");
    const profiled: ProfiledCell[] = await profileBlocks(context, tabs, plan, random, bundleFiles((await page!).outdir), join((await page!).outdir, "assets"));
    // Every key reached the service: its text is each document with all the keys typed into it.
    for (const tab of tabs.values()) {
      const text = await served(origin, tab.id);
      if (text !== tab.expected()) throw new Error(`${tab.label}: the service's text (${text.length} characters) is not the document with the ${tab.typedCount} keys typed into it (${tab.expected().length})`);
      if (tab.tab.errors.length > 0) throw new Error(`${tab.label}: page errors: ${tab.tab.errors.join("; ")}`);
    }
    const converged = [...tabs.values()].map((tab) => `${tab.label}: ${tab.typedCount} keys, the service's text equal to the document with them typed in (${tab.expected().length.toLocaleString("en-US")} characters)`);
    return { cells, profiled, rounds, placement, bytes, converged };
  } finally {
    for (const tab of tabs.values()) await tab.close().catch(() => undefined);
  }
}

export const editorTyping: Scenario = {
  id: "editor-typing",
  title: "Editor typing: key to painted frame in Chromium, 20 vs 5,000 lines",
  budgetS: { full: 210, quick: 90 },
  prepare: (context) => {
    page = buildPage(join(context.tmp, "editor-typing-web"));
    return page;
  },
  run: async (context) => {
    const { result, finish } = beginResult(editorTyping.id, editorTyping.title, context.backend);
    const plan = planFor(context.quick);
    const built = await (page ?? (page = buildPage(join(context.tmp, "editor-typing-web"))));
    servePageFrom(context.build, built.outdir);
    const service = await startService({ build: context.build, backend: context.backend, tmp: context.tmp, ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}) });
    try {
      const browser = await launchChromium();
      try {
        const measured = await measure(context, browser, service.origin, plan);
        reportTyping(result, { ...measured, plan, seed: SEED, buildMs: built.buildMs, chromium: browser.version() });
      } finally {
        await browser.close();
      }
    } finally {
      await service.close();
    }
    return finish();
  },
};
