/**
 * Feed fan-out: opens `waiters` connections in batches, each holding one request that waits for a
 * change (service: GET …/changes?since=<head>&wait=120; bare Fastify: GET /hold), reports when all
 * are written, and on the parent's "fire" sends one trigger (a one-line PATCH, or POST /release)
 * and times every answer.
 *
 * IPC: → registered ← fire → answered ← close → result (the connections stay open until "close", so
 * that the server's CPU time for the answers can be read without their closing in it).
 */
import { fromParent, runChild, sendToParent, sleep, wallNow } from "../lib/child.js";
import { API, createPool, requestJson } from "../lib/http.js";
import { DocState, replaceLine } from "../lib/replica.js";
import { percentileOfSorted } from "../lib/stats.js";

interface Config {
  origin: string;
  mode: "service" | "bare";
  waiters: number;
  batch: number;
  documentId?: string;
  text?: string;
  version?: number;
  timeLimitMs: number;
}

export interface FanoutResult {
  registerMs: number;
  /** Answers that came before the trigger (should be none). */
  early: number;
  statuses: Record<string, number>;
  /** From sending the trigger to its own answer. */
  triggerMs: number;
  firstMs: number;
  p50Ms: number;
  lastMs: number;
  /** From the trigger's answer to the last waiter's answer. */
  lastAfterAckMs: number;
  answered: number;
  /** Answers that came after the trigger was sent. */
  afterFire: number;
}

runChild<Config, FanoutResult>(async (config) => {
  const hardEnd = wallNow() + config.timeLimitMs;
  const pool = createPool(config.origin, config.waiters);
  const path = config.mode === "service" ? `${API}/documents/${config.documentId}/changes?since=${config.version}&wait=120` : "/hold";
  const answeredAt: number[] = [];
  const statuses: Record<string, number> = {};
  let fired = false;
  let early = 0;
  const pending: Promise<void>[] = [];
  const started = wallNow();
  for (let opened = 0; opened < config.waiters; ) {
    const count = Math.min(config.batch, config.waiters - opened);
    for (let i = 0; i < count; i++) {
      pending.push(
        requestJson(pool, "GET", path).then(
          (answer) => {
            answeredAt.push(wallNow());
            statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
            if (!fired) early++;
          },
          (error: unknown) => {
            statuses.error = (statuses.error ?? 0) + 1;
            if (!fired) early++;
            if ((statuses.error ?? 0) < 5) process.stderr.write(`waiter error: ${String(error)}\n`);
          },
        ),
      );
    }
    opened += count;
    // Next batch once this one is connected, so the listen backlog never overflows.
    while (pool.stats.connected < opened - early) {
      if (wallNow() > hardEnd) throw new Error(`only ${pool.stats.connected} of ${opened} connections open at the time limit`);
      await sleep(5);
    }
  }
  const registerMs = wallNow() - started;
  await sendToParent({ type: "registered", registerMs, connected: pool.stats.connected, early });
  await fromParent("fire", Math.max(1000, hardEnd - wallNow()));

  const trigger = createPool(config.origin, 1);
  fired = true;
  const t0 = wallNow();
  let triggerStatus: number;
  if (config.mode === "service") {
    const base = DocState.fromText(config.version!, config.text!);
    const op = replaceLine(0, "line 0 changed by the waking patch");
    triggerStatus = (
      await requestJson(trigger, "PATCH", `${API}/documents/${config.documentId}/content`, {
        baseVersion: base.version,
        checksum: base.checksum,
        clientId: "bench-trigger",
        seq: 1,
        ops: op.wire,
      })
    ).status;
  } else {
    triggerStatus = (await requestJson(trigger, "POST", "/release")).status;
  }
  const ackAt = wallNow();
  if (triggerStatus !== 200) throw new Error(`the trigger answered ${triggerStatus}`);
  const all = Promise.all(pending);
  const limit = sleep(Math.max(0, hardEnd - wallNow())).then(() => "timeout" as const);
  if ((await Promise.race([all, limit])) === "timeout") throw new Error(`${answeredAt.length} of ${config.waiters} waiters answered at the time limit`);
  await sendToParent({ type: "answered" });
  await fromParent("close", Math.max(1000, hardEnd - wallNow()));
  await Promise.all([trigger.close(), pool.close()]);
  const afterFire = answeredAt.filter((at) => at >= t0).map((at) => at - t0).sort((a, b) => a - b);
  return {
    registerMs,
    early,
    statuses,
    triggerMs: ackAt - t0,
    firstMs: afterFire[0] ?? Number.NaN,
    p50Ms: percentileOfSorted(afterFire, 50),
    lastMs: afterFire[afterFire.length - 1] ?? Number.NaN,
    lastAfterAckMs: (afterFire[afterFire.length - 1] ?? Number.NaN) - (ackAt - t0),
    answered: answeredAt.length,
    afterFire: afterFire.length,
  };
});
