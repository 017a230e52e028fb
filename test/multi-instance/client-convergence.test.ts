import { afterEach, beforeEach, expect, it } from "vitest";
import { generateDocumentKey } from "../../src/client/index.js";
import { runConvergence, seeded } from "../support/convergence.js";
import { describePostgres } from "../support/postgres.js";
import { runWordConvergence } from "../support/word-convergence.js";
import { Cluster } from "./instances.js";

// The seeded convergence scenarios of the client (test/support/convergence.ts, word-convergence.ts)
// across two service instances sharing one PostgreSQL schema: live documents 0, 2 and 4 talk to
// instance A, 1 and 3 to instance B. FOLIO_SEED replays a run.

describePostgres("the client across two instances sharing PostgreSQL", () => {
  let cluster: Cluster;
  beforeEach(async () => {
    cluster = await Cluster.start(2);
  });
  afterEach(async () => {
    await cluster.close();
  });

  it("converges four live documents typing words into the same three lines through a faulty network: every word once", { timeout: 40_000 }, async () => {
    await seeded(async (seed) => {
      const report = await runWordConvergence({ seed, baseUrls: [cluster.a.origin, cluster.b.origin], store: cluster.a.store });
      if (process.env.FOLIO_REPORT) console.log(JSON.stringify({ seed, ...report }));
      // Not vacuous: the patches met (409s, merged and sent again), faults were injected.
      expect(report.words).toBe(4 * 12 + 6);
      expect(report.overlaps).toBeGreaterThanOrEqual(2);
      expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(3);
    });
  });

  it("converges three live encrypted documents typing at once across the two instances (docs/encryption.md)", { timeout: 40_000 }, async () => {
    await seeded(async (seed) => {
      const key = generateDocumentKey();
      const report = await runWordConvergence({ seed, baseUrls: [cluster.a.origin, cluster.b.origin], store: cluster.a.store, editors: 3, wordsPerEditor: 8, key });
      if (process.env.FOLIO_REPORT) console.log(JSON.stringify({ seed, ...report }));
      expect(report.words).toBe(3 * 8 + 6);
      // The service holds ciphertext only: no line of the first text (a blank never turns up in base64url).
      const stored = await (await fetch(`${cluster.b.origin}/api/v1/documents/${report.id}`)).text();
      expect(["Plan release", "Announce soon", "Ship today"].filter((line) => stored.includes(line))).toEqual([]);
    });
  });

  it('converges five live documents that ask (conflicts: "ask") through a faulty network, losing no edit but by a conflict resolution', { timeout: 40_000 }, async () => {
    await seeded(async (seed) => {
      const report = await runConvergence({ seed, baseUrls: [cluster.a.origin, cluster.b.origin], store: cluster.a.store });
      if (process.env.FOLIO_REPORT) console.log(JSON.stringify({ seed, ...report }));
      // Two instances on PostgreSQL answer slower than one on SQLite, and slower still on a loaded
      // machine, so the edits go out in fewer, larger patches: measured 11 to 34 versions and 8 to 32
      // faults, the low ends with other test runs sharing the 2 cores.
      expect(report.versions).toBeGreaterThanOrEqual(8);
      expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(6);
    });
  });
});
