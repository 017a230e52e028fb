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
  const seed = process.env.FOLIO_SEED ? Number(process.env.FOLIO_SEED) : Math.floor(Math.random() * 2 ** 31);
  try {
    const report = await runConvergence({ seed, baseUrls: [s.baseUrl], store: s.t.store });
    // Not vacuous: edits went through, faults were injected.
    if (process.env.FOLIO_REPORT) console.log(JSON.stringify(report));
    expect(report.versions).toBeGreaterThan(15);
    expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(10);
  } catch (error) {
    throw new Error(`convergence failed with FOLIO_SEED=${seed}: ${(error as Error).message}`, { cause: error });
  }
});
