import { describe, expect, it } from "vitest";
import { Backoff, RetryNow, earlyEnd, sleep, withTimeout } from "../../src/client/backoff.js";
import { mergeMineWins } from "../../src/client/ask-conflict.js";
import { diffLines } from "../../src/core/diff-lines.js";
import { retryAfter } from "../../src/client/http.js";
import { randomClientId } from "../../src/client/index.js";

// The pure pieces of the client, rule by rule (the rules against the service are in live-*.test.ts).

const lines = (text: string) => text.split("\n");

describe("Backoff", () => {
  it("doubles from the first wait up to the cap, each wait half fixed and half random", () => {
    const low = new Backoff({ initialMs: 100, maxMs: 1_000 }, () => 0);
    const high = new Backoff({ initialMs: 100, maxMs: 1_000 }, () => 0.999999);
    expect(Array.from({ length: 6 }, () => low.next())).toEqual([50, 100, 200, 400, 500, 500]);
    expect(Array.from({ length: 6 }, () => Math.round(high.next()))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it("waits at least Retry-After, but no longer than its own cap for it", () => {
    const backoff = new Backoff({ initialMs: 100, maxRetryAfterMs: 10_000 }, () => 0);
    expect(backoff.next(3)).toBe(3_000);
    expect(backoff.next(3_600)).toBe(10_000);
    backoff.reset();
    expect(backoff.next(0)).toBe(50);
  });
});

describe("retryAfter", () => {
  it("reads seconds and HTTP dates, and nothing else", () => {
    expect(retryAfter("5")).toBe(5);
    expect(retryAfter(null)).toBeUndefined();
    expect(retryAfter("soon")).toBeUndefined();
    expect(retryAfter(new Date(Date.now() - 1_000).toUTCString())).toBe(0);
    expect(retryAfter(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(55);
  });
});

describe("sleep and withTimeout", () => {
  it("end at once when the signal fires, with an AbortError", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    await expect(withTimeout(controller.signal, 60_000, () => new Promise(() => undefined))).rejects.toMatchObject({ name: "AbortError" });
  });

  it("end early when RetryNow fires, never before the Retry-After, and at once after a fire during the attempt", async () => {
    const signal = new AbortController().signal;
    const now = new RetryNow();
    const started = performance.now();
    const plain = sleep(60_000, signal, earlyEnd(now, now.fires, undefined));
    const retryAfter = sleep(60_000, signal, earlyEnd(now, now.fires, 0.3));
    now.fire();
    await plain;
    expect(performance.now() - started).toBeLessThan(250);
    await retryAfter;
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(performance.now() - started).toBeLessThan(5_000);
    // An attempt begun before a fire (the fire came while it was under way): its wait ends at once.
    const seen = now.fires;
    now.fire();
    await sleep(60_000, signal, earlyEnd(now, seen, undefined));
    // An attempt begun after every fire waits, until it is aborted.
    const controller = new AbortController();
    const later = sleep(60_000, controller.signal, earlyEnd(now, now.fires, undefined));
    const settled = await Promise.race([later.then(() => "ended"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 100))]);
    expect(settled).toBe("waiting");
    controller.abort();
    await expect(later).rejects.toMatchObject({ name: "AbortError" });
  });

  it("gives up on a task that ignores its signal after the timeout, with a TimeoutError", async () => {
    await expect(withTimeout(new AbortController().signal, 20, () => new Promise(() => undefined))).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

describe("mergeMineWins: keep mine", () => {
  const mine = (from: string[], local: string[], target: string[]) => mergeMineWins(from, local, target, diffLines(from, target));

  it("keeps the remote changes elsewhere and the local version of the contested lines", () => {
    expect(mine(lines("a\nb\nc\nd"), lines("a\nmine\nc\nd"), lines("a\ntheirs\nc\nD"))).toEqual(lines("a\nmine\nc\nD"));
  });

  it("keeps a local deletion of a line the other side changed", () => {
    expect(mine(lines("a\nb\nc"), lines("a\nc"), lines("a\nB\nc\nd"))).toEqual(lines("a\nc\nd"));
  });
});

it("makes client ids of 128 random bits", () => {
  const ids = new Set(Array.from({ length: 100 }, () => randomClientId()));
  expect(ids.size).toBe(100);
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
});
