import { expect, it } from "vitest";
import { runConvergence, seeded } from "../support/convergence.js";
import { servedAppPerTest } from "../support/app-per-test.js";
import { runWordConvergence } from "../support/word-convergence.js";

// The seeded convergence scenarios of the client on one service (test/support/convergence.ts and
// word-convergence.ts); FOLIO_SEED replays a run.

const s = servedAppPerTest();

it("converges four live documents typing words into the same three lines through a faulty network: every word once", { timeout: 30_000 }, async () => {
  await seeded(async (seed) => {
    const report = await runWordConvergence({ seed, baseUrls: [s.baseUrl], store: s.t.store });
    if (process.env.FOLIO_REPORT) console.log(JSON.stringify({ seed, ...report }));
    // Not vacuous: the patches met (409s, merged and sent again), faults were injected.
    expect(report.words).toBe(4 * 12 + 6);
    expect(report.overlaps).toBeGreaterThanOrEqual(2);
    expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(3);
  });
});

it('converges five live documents that ask (conflicts: "ask") through a faulty network, losing no edit but by a conflict resolution', { timeout: 30_000 }, async () => {
  await seeded(async (seed) => {
    const report = await runConvergence({ seed, baseUrls: [s.baseUrl], store: s.t.store });
    if (process.env.FOLIO_REPORT) console.log(JSON.stringify({ seed, ...report }));
    expect(report.versions).toBeGreaterThanOrEqual(12);
    expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(10);
  });
});
