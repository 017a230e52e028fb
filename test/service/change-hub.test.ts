import { beforeEach, describe, expect, it } from "vitest";
import { ChangeHub, KNOWN_HEADS, type WakeReason } from "../../src/service/change-hub.js";
import { ManualClock } from "../support/manual-clock.js";

// The hub's timers (a wait's time-out, a window's end) run on a ManualClock: they fire when a test moves it.

const DOC = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a01";
const OTHER = "8c1d2e3f-4a5b-4c6d-8e7f-901234567890";
const IDLE = { documents: 0, waiters: 0, timers: 0 };

/** A wait of the hub with its wake-up as a promise. */
function waitOn(hub: ChangeHub, documentId: string, since: number, timeoutMs: number): { reason: Promise<WakeReason>; cancel: () => void } {
  const wait = hub.wait(documentId, since, timeoutMs);
  return { reason: wait.woken, cancel: () => wait.cancel() };
}

describe("ChangeHub", () => {
  let clock: ManualClock;
  beforeEach(() => {
    clock = new ManualClock();
  });

  it("wakes a waiter with the version of a commit past its since, and forgets it", async () => {
    const hub = new ChangeHub({ clock });
    const wait = waitOn(hub, DOC, 3, 60_000);
    expect(hub.stats()).toEqual({ documents: 1, waiters: 1, timers: 1 });

    hub.notify(DOC, 4);

    expect(await wait.reason).toEqual({ kind: "changed", version: 4 });
    expect(hub.stats()).toEqual(IDLE);
  });

  it("does not wake a waiter for a commit it already has, nor for another document", async () => {
    const hub = new ChangeHub({ clock });
    const wait = waitOn(hub, DOC, 5, 60_000);
    let settled = false;
    void wait.reason.then(() => (settled = true));

    hub.notify(DOC, 5);
    hub.notify(DOC, 2);
    hub.notify(OTHER, 9);
    await new Promise((resolve) => setImmediate(resolve));

    expect(settled).toBe(false);
    expect(hub.stats()).toEqual({ documents: 1, waiters: 1, timers: 1 });
    wait.cancel();
    expect(await wait.reason).toEqual({ kind: "aborted" });
    expect(hub.stats()).toEqual(IDLE);
  });

  it("wakes every waiter with version 0 when notices may have been lost", async () => {
    const hub = new ChangeHub({ clock });
    const waits = [waitOn(hub, DOC, 7, 60_000), waitOn(hub, OTHER, 1, 60_000)];

    hub.wakeAll();

    expect(await Promise.all(waits.map((wait) => wait.reason))).toEqual([
      { kind: "changed", version: 0 },
      { kind: "changed", version: 0 },
    ]);
    expect(hub.stats()).toEqual(IDLE);
  });

  it("ends a wait when its time runs out, it is cancelled, or the hub closes", async () => {
    const hub = new ChangeHub({ clock });
    const timedOut = waitOn(hub, DOC, 0, 1);
    const aborted = waitOn(hub, DOC, 0, 60_000);
    const closed = waitOn(hub, OTHER, 0, 60_000);

    aborted.cancel();
    expect(await aborted.reason).toEqual({ kind: "aborted" });
    clock.advance(1);
    expect(await timedOut.reason).toEqual({ kind: "timeout" });
    hub.close();
    expect(await closed.reason).toEqual({ kind: "closed" });
    expect(hub.stats()).toEqual(IDLE);
    expect(await waitOn(hub, DOC, 0, 60_000).reason).toEqual({ kind: "closed" });
  });

  it("wakes a busy document's waiters at once, then gathers the commits of the window that follows", async () => {
    const hub = new ChangeHub({ msPerWaiter: 1, maxCoalesceMs: 250, clock });
    const first = Array.from({ length: 10 }, () => waitOn(hub, DOC, 3, 60_000));

    hub.notify(DOC, 4);
    expect(await Promise.all(first.map((wait) => wait.reason))).toEqual(Array.from({ length: 10 }, () => ({ kind: "changed", version: 4 })));

    const second = Array.from({ length: 10 }, () => waitOn(hub, DOC, 4, 60_000));
    let settled = 0;
    for (const wait of second) void wait.reason.then(() => settled++);
    hub.notify(DOC, 6);
    hub.notify(DOC, 5);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(0);
    clock.advance(10);

    expect(await Promise.all(second.map((wait) => wait.reason))).toEqual(Array.from({ length: 10 }, () => ({ kind: "changed", version: 6 })));
    expect(hub.stats()).toEqual(IDLE);
  });

  it("wakes a few waiters at once, without a window", async () => {
    const hub = new ChangeHub({ msPerWaiter: 0.2, maxCoalesceMs: 250, clock });
    const wait = waitOn(hub, DOC, 1, 60_000);
    let settled = false;
    void wait.reason.then(() => (settled = true));

    hub.notify(DOC, 2);
    // The clock stands still: a window's timer would not have fired.
    await new Promise((resolve) => setImmediate(resolve));

    expect(settled).toBe(true);
  });

  it("knows the newest version noticed per document, also without waiters and during a window", async () => {
    const hub = new ChangeHub({ msPerWaiter: 1, maxCoalesceMs: 250, clock });
    expect(hub.knownVersion(DOC)).toBeUndefined();

    hub.notify(DOC, 3);
    hub.notify(DOC, 2);
    hub.notify(OTHER, 1);
    expect([hub.knownVersion(DOC), hub.knownVersion(OTHER)]).toEqual([3, 1]);

    // Commits gathered in a window are known at once, before the window's wake-up.
    const waits = Array.from({ length: 5 }, () => waitOn(hub, DOC, 3, 60_000));
    hub.notify(DOC, 4);
    await Promise.all(waits.map((wait) => wait.reason));
    const held = Array.from({ length: 5 }, () => waitOn(hub, DOC, 4, 60_000));
    hub.notify(DOC, 5);
    expect(hub.knownVersion(DOC)).toBe(5);
    clock.advance(5);
    expect(await Promise.all(held.map((wait) => wait.reason))).toEqual(Array.from({ length: 5 }, () => ({ kind: "changed", version: 5 })));
  });

  it("tells which since values only the open window has news for: from the version that opened it up to before the newest it gathered", async () => {
    const hub = new ChangeHub({ msPerWaiter: 1, maxCoalesceMs: 250, clock });
    const waits = Array.from({ length: 5 }, () => waitOn(hub, DOC, 3, 60_000));
    expect(hub.gathers(DOC, 3)).toBe(false);

    hub.notify(DOC, 4);
    await Promise.all(waits.map((wait) => wait.reason));
    // Open, but nothing gathered yet: nobody at 4 or past it has news.
    expect([3, 4, 5].map((since) => hub.gathers(DOC, since))).toEqual([false, false, false]);
    const waiting = waitOn(hub, DOC, 4, 60_000);
    hub.notify(DOC, 6);
    expect([3, 4, 5, 6, 7].map((since) => hub.gathers(DOC, since))).toEqual([false, true, true, false, false]);
    expect(hub.gathers(OTHER, 4)).toBe(false);
    clock.advance(5);

    expect(await waiting.reason).toEqual({ kind: "changed", version: 6 });
    expect(hub.gathers(DOC, 4)).toBe(false);
  });

  it("forgets the versions noticed when notices may have been lost", () => {
    const hub = new ChangeHub({ clock });
    hub.notify(DOC, 3);

    hub.wakeAll();

    expect(hub.knownVersion(DOC)).toBeUndefined();
    hub.notify(DOC, 4);
    expect(hub.knownVersion(DOC)).toBe(4);
  });

  it("remembers at most KNOWN_HEADS documents, forgetting the one noticed longest ago first", () => {
    const hub = new ChangeHub({ clock });
    const id = (n: number) => `doc-${n}`;
    for (let n = 0; n < KNOWN_HEADS; n++) hub.notify(id(n), 1);
    hub.notify(id(0), 2);

    hub.notify(id(KNOWN_HEADS), 1);

    expect([hub.knownVersion(id(0)), hub.knownVersion(id(1)), hub.knownVersion(id(2)), hub.knownVersion(id(KNOWN_HEADS))]).toEqual([2, undefined, 1, 1]);
  });

  it("drops a held-back wake-up when it closes", async () => {
    const hub = new ChangeHub({ msPerWaiter: 1, maxCoalesceMs: 250, clock });
    const early = Array.from({ length: 5 }, () => waitOn(hub, DOC, 0, 60_000));
    hub.notify(DOC, 1);
    await Promise.all(early.map((wait) => wait.reason));
    const waits = Array.from({ length: 5 }, () => waitOn(hub, DOC, 1, 60_000));
    hub.notify(DOC, 2);

    hub.close();

    expect(await Promise.all(waits.map((wait) => wait.reason))).toEqual(Array.from({ length: 5 }, () => ({ kind: "closed" })));
  });
});
