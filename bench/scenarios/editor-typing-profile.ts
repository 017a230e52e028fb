/**
 * The editor-typing scenario's profiled blocks (editor-typing.ts): after the measured rounds, one
 * more block per size and pace with V8's sampling profiler on the page's main thread (CDP Profiler,
 * every 100 µs), so the profiler's own cost never touches the latencies reported. Frames are mapped
 * through the bundle's source map to the repository's files (bench/lib/page-profile.ts).
 */
import { checkDeadline, type BenchContext } from "../lib/context.js";
import { sourceMapper, startProfiler, stopProfiler, summarizePageProfile, type PageProfile } from "../lib/page-profile.js";
import { offsets, PACES, words, type BlockResult, type PaceId, type TypingTab } from "../lib/typing-session.js";
import type { Plan } from "./editor-typing.js";

export interface ProfiledCell {
  size: number;
  pace: PaceId;
  keys: number;
  block: BlockResult;
  profile: PageProfile;
}

export async function profileBlocks(
  context: BenchContext,
  tabs: ReadonlyMap<number, TypingTab>,
  plan: Plan,
  random: () => number,
  bundle: { script: string; map: unknown },
  assetsDir: string,
): Promise<ProfiledCell[]> {
  const map = sourceMapper(bundle.map, assetsDir);
  const cells: ProfiledCell[] = [];
  for (const pace of PACES) {
    const keys = plan.profileKeys[pace.id];
    const costMs = keys * (pace.id === "steady" ? 200 : 40) + 3000;
    for (const [size, tab] of tabs) {
      if (performance.now() + costMs + 10_000 > context.deadline) {
        context.log(`no time left to profile ${size} lines at ${pace.label}`);
        continue;
      }
      checkDeadline(context, "the profiled blocks");
      const text = words(keys, random);
      await startProfiler(tab.session);
      const block = await tab.block(text, offsets(text.length, () => pace.interval(random))).catch(async (error: unknown) => {
        await stopProfiler(tab.session).catch(() => undefined);
        throw error;
      });
      const profile = await stopProfiler(tab.session);
      cells.push({ size, pace: pace.id, keys, block, profile: summarizePageProfile(profile, `/assets/${bundle.script}`, map) });
    }
  }
  return cells;
}
