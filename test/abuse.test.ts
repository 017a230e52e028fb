import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, describe, expect, it } from "vitest";
import { runAbuse } from "../bench/load/abuse.js";
import { FakeTaiga } from "../src/demo/fake-taiga.js";
import { startProcess, type ServerProcess } from "./support/server-process.js";

// One client address sends the worst requests the limits allow (bench/load/abuse.ts) to the service
// as it ships (its own process, the default limits; the request timeout at 5 s so that slow bodies
// end within the run) while a second loopback address reads and patches a small document: the
// second is never stalled (its 99th percentile under two seconds), nothing it was told was saved is lost, nobody gets a
// 5xx, and list requests without credentials never lock the list. `npm run bench -- --only abuse`
// runs the same for longer and judges the 100 ms target (docs/benchmarks.md).

const PASSWORD = "the owner's password";
const RUN_MS = 20_000;
let server: ServerProcess | undefined;
let fake: FakeTaiga | undefined;
const dir = mkdtempSync(join(tmpdir(), "folio-abuse-"));

afterAll(async () => {
  server?.kill();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("one client address against the limits", () => {
  it("cannot stall another: its p99 stays under two seconds, nothing is lost, no 5xx, and the list is never locked by requests without credentials", async () => {
    fake = await FakeTaiga.start({ record: false });
    server = startProcess(
      "src/server.ts",
      {
        SERVER_HOST: "127.0.0.1",
        SERVER_PORT: "0",
        SERVICE_STORAGE_URL: `sqlite:${join(dir, "service.db")}`,
        SERVICE_MASTER_PASSWORD_HASH: bcrypt.hashSync(PASSWORD, 10),
        SERVICE_TRACKER_API_URL: fake.apiUrl,
        SERVER_REQUEST_TIMEOUT_SECONDS: "5",
        // Documents of 1 MiB at most: a whole text of 5 MiB (the default) is still parsed, diffed,
        // compressed and written on the event loop, up to a second at a time (docs/benchmarks.md,
        // "Abuse"); the benchmark measures both.
        SERVICE_DOCUMENTS_MAX_CONTENT_BYTES: String(1024 * 1024),
        LOG_LEVEL: "info",
      },
      dir,
    );
    const listening = await server.waitForLine((line) => line.msg.startsWith("listening on "), 60_000);
    const result = await runAbuse({
      base: String(listening.address),
      attacker: "127.0.0.1",
      victim: "127.0.0.2",
      durationMs: RUN_MS,
      bigLines: 20_000,
      longPolls: 5000,
      slowBodies: 20,
      nestedBytes: 2_000_000,
      password: PASSWORD,
    });
    const report = `victim's own event-loop delay p99 ${result.victim.ownDelayP99.toFixed(1)} ms; victim alone p50 ${result.baseline.p50.toFixed(1)} ms, p99 ${result.baseline.p99.toFixed(1)} ms; under attack p50 ${result.victim.p50.toFixed(1)} ms, p99 ${result.victim.p99.toFixed(1)} ms, max ${result.victim.max.toFixed(0)} ms over ${result.victim.latencies.length} requests; attacker ${JSON.stringify(result.attacker)}`;
    const slowest = server.lines.filter((line) => line.msg === "request").sort((a, b) => Number(b.durationMs) - Number(a.durationMs)).slice(0, 12).map((line) => `${String(line.method)} ${String(line.route)} ${String(line.status)} ${String(line.durationMs)} ms`);
    console.log(`${report}\nthe victim's slowest: ${JSON.stringify(result.victim.slowest)}\nthe service's slowest: ${slowest.join("; ")}`);
    expect(result.listAfterNoCredentials, report).toBe(200);
    expect(result.serverErrors, report).toEqual([]);
    expect(result.victim.unexpected, report).toEqual([]);
    expect({ lost: result.victim.lost, acknowledged: result.victim.acknowledged.length === result.victim.patchesSent }, report).toEqual({ lost: [], acknowledged: true });
    // Each kind of attack met its limit (or its bound) during the run.
    const refused = (kind: string, ...statuses: number[]) => statuses.some((status) => (result.attacker[kind]?.[status] ?? 0) > 0);
    expect(
      {
        nested: refused("nested body", 400),
        polls: refused("long poll", 429),
        slow: refused("slow body", 408),
        guesses: refused("list guesses", 429),
        tracker: refused("tracker reads", 429),
        logins: refused("tracker logins", 429),
        rebase: refused("stale rebase", 422, 429),
      },
      report,
    ).toEqual({ nested: true, polls: true, slow: true, guesses: true, tracker: true, logins: true, rebase: true });
    // Latency is a benchmark's to judge (`npm run bench -- --only abuse` holds the 100 ms target,
    // docs/benchmarks.md): here other test files run beside this one. What the test holds is that
    // nothing stalls the victim: its p99 under two seconds, which the unbounded requests of before (a
    // 20 s stall) broke.
    expect(result.victim.p99, report).toBeLessThan(2000);
  }, 120_000);
});
