import bcrypt from "bcryptjs";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";
import { runAbuse, type AbuseResult } from "../load/abuse.js";
import { beginResult, checkDeadline, type BenchContext, type Scenario } from "../lib/context.js";
import { startService } from "../lib/service.js";
import { figure } from "../lib/stats.js";

const ID = "abuse";
const TITLE = "Abuse: one address at the limits, another reading and patching";
const PASSWORD = "the owner's password";

/** The two runs: documents of up to 1 MiB (the figure the target holds to), and the default 5 MiB. */
const RUNS = [
  { key: "1mib", label: "max-content-bytes 1 MiB", maxContentBytes: 1024 * 1024, bigLines: 20_000, nestedBytes: 2_000_000 },
  { key: "5mib", label: "max-content-bytes 5 MiB (default)", maxContentBytes: 5 * 1024 * 1024, bigLines: 100_000, nestedBytes: 9_800_000 },
] as const;

/**
 * bench/load/abuse.ts against the service with its rate limits at their defaults (the benchmarks'
 * other scenarios turn them off), on two configurations: each run starts a fresh service and a fake
 * Taiga, lets the victim (127.0.0.2) read and patch alone for 3 s, then under the attack of 127.0.0.1.
 */
async function measure(context: BenchContext) {
  const { result, finish } = beginResult(ID, TITLE, context.backend);
  const durationMs = context.quick ? 10_000 : 40_000;
  const measured: { run: (typeof RUNS)[number]; abuse: AbuseResult }[] = [];
  for (const run of RUNS) {
    checkDeadline(context, `${ID} ${run.key}`);
    const fake = await FakeTaiga.start({ record: false });
    const service = await startService({
      build: context.build,
      backend: context.backend,
      tmp: context.tmp,
      ...(context.pgUrl ? { pgUrl: context.pgUrl } : {}),
      env: {
        // The defaults of every rate limit, which startService otherwise turns off.
        SERVICE_RATE_LIMIT_CREATES_PER_MINUTE: "60",
        SERVICE_RATE_LIMIT_WRITES_PER_SECOND: "200",
        SERVICE_RATE_LIMIT_READS_PER_SECOND: "200",
        SERVICE_RATE_LIMIT_WAITS_PER_ADDRESS: "200",
        SERVICE_RATE_LIMIT_TRACKER_LOGINS_PER_MINUTE: "10",
        SERVICE_RATE_LIMIT_TRACKER_READS_PER_SECOND: "20",
        SERVICE_DOCUMENTS_MAX_CONTENT_BYTES: String(run.maxContentBytes),
        SERVICE_FEED_MAX_WAIT_SECONDS: "60",
        SERVICE_MASTER_PASSWORD_HASH: bcrypt.hashSync(PASSWORD, 10),
        SERVICE_TRACKER_API_URL: fake.apiUrl,
        SERVER_REQUEST_TIMEOUT_SECONDS: "5",
      },
    });
    try {
      context.log(`${run.label}: ${durationMs / 1000} s of attack`);
      const abuse = await runAbuse({
        base: service.origin,
        attacker: "127.0.0.1",
        victim: "127.0.0.2",
        durationMs,
        bigLines: run.bigLines,
        longPolls: 5000,
        slowBodies: 20,
        nestedBytes: run.nestedBytes,
        password: PASSWORD,
        log: (message) => context.log(`${run.key}: ${message}`),
      });
      measured.push({ run, abuse });
    } finally {
      await service.close();
      await fake.close();
    }
  }
  for (const { run, abuse } of measured) {
    const { victim, baseline } = abuse;
    result.rows.push({ label: `${run.label}: victim alone, p50 / p99`, figure: figure([baseline.p50, baseline.p99], "ms") });
    result.rows.push({ label: `${run.label}: victim under attack, p50`, figure: figure([victim.p50], "ms") });
    result.rows.push({ label: `${run.label}: victim under attack, p99`, figure: figure([victim.p99], "ms") });
    result.rows.push({ label: `${run.label}: victim under attack, slowest`, figure: figure([victim.max], "ms") });
    result.notes.push(
      `${run.label}: the victim sent ${victim.latencies.length} requests (${victim.patchesSent} patches, ${victim.acknowledged.length} acknowledged, ${victim.lost.length} lost); server errors: ${abuse.serverErrors.length}; the owner's list after the flood without credentials: ${abuse.listAfterNoCredentials}. The attacker's answers: ${Object.entries(
        abuse.attacker,
      )
        .map(([kind, statuses]) => `${kind} ${Object.entries(statuses).map(([status, count]) => `${status}×${count}`).join(" ")}`)
        .join("; ")}.`,
    );
    result.targets.push({
      id: `abuse-victim-p99-${run.key}`,
      label: `abuse (${run.label}): the other address's p99, no loss, no 5xx`,
      measured: `p99 ${victim.p99.toFixed(1)} ms (alone ${baseline.p99.toFixed(1)} ms), ${victim.lost.length} lost, ${abuse.serverErrors.length} 5xx`,
      value: victim.p99,
      threshold: "< 100 ms",
      met: victim.p99 < 100 && victim.lost.length === 0 && abuse.serverErrors.length === 0,
    });
  }
  result.method.push(
    `Each run: a fresh service (rate limits at their defaults, request timeout 5 s, a bcrypt master password, a fake Taiga), the victim alone for 3 s, then ${durationMs / 1000} s of attack.`,
    "The attacker (127.0.0.1, one process): a body nested millions deep, a big document's GET, history and feed from version 1, whole-text replaces of it and stale rebases over them, 20 bodies sent a byte a second, 5,000 long polls at once, 20 parallel guesses at the list in a loop, tracker reads with made-up tokens and tracker logins; every refused request is sent again after 20 ms, whatever its Retry-After. Before it: 160 list requests without credentials (none, another scheme, HEAD).",
    "The victim (127.0.0.2, a thread of its own): reads its small document, appends a line by a content patch (sent again with the same seq until acknowledged) and asks the feed, one request at a time with 20 ms between them; every request timed.",
  );
  return finish();
}

export const abuse: Scenario = {
  id: ID,
  title: TITLE,
  budgetS: { full: 150, quick: 60 },
  run: measure,
};
