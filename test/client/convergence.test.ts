import { afterEach, beforeEach, expect, it } from "vitest";
import { runConvergence } from "../support/convergence.js";
import { serveTestApp, type ServedApp } from "../support/client-harness.js";

// The seeded convergence scenario (test/support/convergence.ts) on one service; FOLIO_SEED replays a run.

let s: ServedApp;
beforeEach(async () => {
  s = await serveTestApp();
});
afterEach(async () => {
  await s.close();
});

it("converges five live documents typing at random through a faulty network, losing no edit but by a conflict resolution", { timeout: 30_000 }, async () => {
  // FOLIO_CONVERGENCE_RUNS=n repeats the scenario with n seeds in a row (a soak; give it a longer timeout).
  const runs = Math.max(1, Number(process.env.FOLIO_CONVERGENCE_RUNS ?? 1));
  for (let run = 0; run < runs; run++) {
    const seed = process.env.FOLIO_SEED ? Number(process.env.FOLIO_SEED) : Math.floor(Math.random() * 2 ** 31);
    try {
      const report = await runConvergence({ seed, baseUrls: [s.baseUrl], store: s.t.store });
      if (process.env.FOLIO_REPORT) console.log(JSON.stringify({ seed, ...report }));
      // Not vacuous: edits went through, faults were injected.
      expect(report.versions).toBeGreaterThanOrEqual(12);
      expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(10);
    } catch (error) {
      throw new Error(`convergence failed with FOLIO_SEED=${seed}: ${(error as Error).message}`, { cause: error });
    }
  }
});
