import { afterEach, beforeEach, expect, it } from "vitest";
import { runConvergence } from "../support/convergence.js";
import { describePostgres } from "../support/postgres.js";
import { Cluster } from "./instances.js";

// The seeded convergence scenario of the client (test/support/convergence.ts) across two service
// instances sharing one PostgreSQL schema: live documents 0, 2 and 4 talk to instance A, 1 and 3 to
// instance B. FOLIO_SEED replays a run.

describePostgres("the client across two instances sharing PostgreSQL", () => {
  let cluster: Cluster;
  beforeEach(async () => {
    cluster = await Cluster.start(2);
  });
  afterEach(async () => {
    await cluster.close();
  });

  it("converges five live documents typing at random through a faulty network, losing no edit but by a conflict resolution", { timeout: 40_000 }, async () => {
    const seed = process.env.FOLIO_SEED ? Number(process.env.FOLIO_SEED) : Math.floor(Math.random() * 2 ** 31);
    try {
      const report = await runConvergence({ seed, baseUrls: [cluster.a.origin, cluster.b.origin], store: cluster.a.store });
      if (process.env.FOLIO_REPORT) console.log(JSON.stringify({ seed, ...report }));
      expect(report.versions).toBeGreaterThanOrEqual(12);
      expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(10);
    } catch (error) {
      throw new Error(`convergence failed with FOLIO_SEED=${seed}: ${(error as Error).message}`, { cause: error });
    }
  });
});
