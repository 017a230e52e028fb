import { describe, expect, it } from "vitest";
import type { TrackerTicketDetail } from "../../src/client/index.js";
import { TicketCache, type CachedTicket, type FetchFailure, type TicketKey } from "../../web/ticket-cache.js";

// The inline badges' cache (web/ticket-cache.ts): bounded concurrency, one fetch per key at a time,
// a short lifetime on a clock the test moves, and answers after a log-out dropped.

interface Call {
  key: TicketKey;
  answer: (detail: TrackerTicketDetail) => void;
  fail: (failure: FetchFailure) => void;
}

function setup(options: { concurrency?: number; maxPerRound?: number } = {}) {
  let now = 1_000;
  let inFlight = 0;
  let most = 0;
  const calls: Call[] = [];
  const cache = new TicketCache({
    fetch: (key) =>
      new Promise<TrackerTicketDetail>((resolve, reject) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        const settle = () => (inFlight -= 1);
        calls.push({ key, answer: (detail) => (settle(), resolve(detail)), fail: (failure) => (settle(), reject(new Error(failure))) });
      }),
    classify: (error) => (error as Error).message as FetchFailure,
    now: () => now,
    ttlMs: 60_000,
    retryMs: 15_000,
    ...options,
  });
  const answers: [number, CachedTicket["state"]][] = [];
  const run = (keys: TicketKey[]) => cache.fetchMissing(keys, (key, value) => answers.push([key.ref, value.state]));
  return { cache, calls, answers, run, most: () => most, advance: (ms: number) => (now += ms) };
}

const key = (ref: number): TicketKey => ({ slug: "alice-folio", kind: "story", ref });
const detail = (ref: number, status = "New"): TrackerTicketDetail => ({ id: 100 + ref, ref, subject: `#${ref}`, status, statusClosed: false, version: 1 });
/** Lets the pending promise callbacks run (every step here is a resolved promise, no timer). */
const settle = async () => {
  for (let k = 0; k < 10; k++) await Promise.resolve();
};

describe("the ticket cache of the inline badges", () => {
  it("fetches at most four at a time over all rounds, each key once, in the order asked", async () => {
    const t = setup();
    const round = t.run([1, 2, 3, 2, 4, 5, 6, 1].map(key));
    await settle();
    expect(t.calls.map((call) => call.key.ref)).toEqual([1, 2, 3, 4]);
    // A second round while these are under way asks only for what is neither cached nor pending,
    // and waits for a free slot behind the first round.
    const second = t.run([1, 7].map(key));
    await settle();
    expect(t.calls.map((call) => call.key.ref)).toEqual([1, 2, 3, 4]);
    for (let k = 0; k < 7; k++) {
      const call = t.calls[k];
      if (!call) throw new Error(`fetch ${k + 1} never started (${t.calls.length} did)`);
      call.answer(detail(call.key.ref));
      await settle();
    }
    expect(await Promise.all([round, second])).toEqual(["done", "done"]);
    expect(t.calls.map((call) => call.key.ref)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(t.most()).toEqual(4);
    expect(t.answers.map(([ref]) => ref)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(t.cache.get(key(5))).toEqual({ state: "found", detail: detail(5) });
  });

  it("asks again only once an answer has expired, and keeps showing the old one meanwhile", async () => {
    const t = setup();
    const first = t.run([key(1)]);
    await settle();
    t.calls[0]!.answer(detail(1));
    await first;
    await t.run([key(1)]);
    t.advance(59_999);
    await t.run([key(1)]);
    expect(t.calls.length).toEqual(1);
    t.advance(1);
    const again = t.run([key(1)]);
    await settle();
    expect(t.calls.length).toEqual(2);
    expect(t.cache.get(key(1))).toEqual({ state: "found", detail: detail(1) });
    t.calls[1]!.answer(detail(1, "Done"));
    await again;
    expect(t.cache.get(key(1))).toEqual({ state: "found", detail: detail(1, "Done") });
  });

  it("remembers a missing ticket, retries a passing failure later, and stops at a refused token", async () => {
    const t = setup({ concurrency: 1 });
    const round = t.run([1, 2, 3, 4].map(key));
    await settle();
    t.calls[0]!.fail("missing");
    await settle();
    t.calls[1]!.fail("failed");
    await settle();
    t.calls[2]!.fail("rejected");
    expect(await round).toEqual("rejected");
    // Ticket 4 was never asked: the token was refused first.
    expect(t.calls.map((call) => call.key.ref)).toEqual([1, 2, 3]);
    expect([t.cache.get(key(1)), t.cache.get(key(2))]).toEqual([{ state: "missing" }, undefined]);
    expect(t.answers).toEqual([[1, "missing"]]);
    expect([t.cache.stale(key(1)), t.cache.stale(key(2))]).toEqual([false, false]);
    t.advance(15_000);
    expect([t.cache.stale(key(1)), t.cache.stale(key(2))]).toEqual([false, true]);
  });

  it("drops answers that come after a log-out", async () => {
    const t = setup();
    const round = t.run([key(1)]);
    await settle();
    t.cache.clear();
    t.calls[0]!.answer(detail(1));
    await round;
    expect([t.cache.get(key(1)), t.answers]).toEqual([undefined, []]);
    expect(t.cache.stale(key(1))).toEqual(true);
  });

  it("asks for at most maxPerRound tickets in one round, and a put is fresh", async () => {
    const t = setup({ maxPerRound: 2 });
    t.cache.put(key(1), detail(1));
    const round = t.run([1, 2, 3, 4].map(key));
    await settle();
    expect(t.calls.map((call) => call.key.ref)).toEqual([2, 3]);
    for (const call of t.calls) call.answer(detail(call.key.ref));
    expect(await round).toEqual("done");
  });
});
