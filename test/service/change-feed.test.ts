import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { checksum } from "../support/http-expect.js";
import { IDLE_HUB } from "../support/feed-client.js";
import { waitUntil } from "../support/wait-until.js";

// ChangeFeed.next, the one source of answers of the long poll, the event stream and read links:
// an async function on an AbortSignal. What it leaves in the hub when the signal aborts, and on a
// signal waited on again and again (a stream's). The app's clock is a ManualClock: no wait times
// out unless a test moves it.

describe("ChangeFeed.next", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  async function patchLine(id: string, version: number, text: string, line: string): Promise<void> {
    const outcome = await t.services.patcher.patch(id, { baseVersion: version, checksum: checksum(text), clientId: "writer", seq: version, ops: [{ op: "insert", index: 0, lines: [line] }] });
    expect(outcome.kind).toBe("accepted");
  }

  it("ends a wait at once when its signal aborts: undefined, and no waiter, timer or abort listener left", async () => {
    const { id } = await t.services.documents.create({ title: "T", content: "a" });
    const controllers = Array.from({ length: 20 }, () => new AbortController());
    const waits = controllers.map((controller) => t.services.feed.next(id, 1, { waitSeconds: 60, signal: controller.signal }));
    expect(await waitUntil(() => t.services.hub.stats().waiters === 20)).toBe(true);
    for (const controller of controllers) expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);

    for (const controller of controllers) controller.abort();
    expect(await Promise.all(waits)).toEqual(controllers.map(() => undefined));
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
    for (const controller of controllers) expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("does not wait on a signal already aborted: it answers what is new, or undefined at once", async () => {
    const { id } = await t.services.documents.create({ title: "T", content: "a" });
    const signal = AbortSignal.abort();
    expect(await t.services.feed.next(id, 1, { waitSeconds: 60, signal })).toBeUndefined();
    expect(await t.services.feed.next(id, 0, { waitSeconds: 60, signal })).toMatchObject({ currentVersion: 1, content: "a" });
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("answers a change on a signal waited on again and again, holding at most one abort listener on it", async () => {
    const { id } = await t.services.documents.create({ title: "T", content: "a" });
    const { signal } = new AbortController();
    let text = "a";
    for (let version = 1; version < 4; version++) {
      const waiting = t.services.feed.next(id, version, { waitSeconds: 60, signal });
      expect(await waitUntil(() => t.services.hub.stats().waiters === 1)).toBe(true);
      expect(getEventListeners(signal, "abort")).toHaveLength(1);
      await patchLine(id, version, text, `line ${version}`);
      text = `line ${version}\n${text}`;
      expect(await waiting).toMatchObject({ fromVersion: version, currentVersion: version + 1 });
      expect(t.services.hub.stats()).toEqual(IDLE_HUB);
      expect(getEventListeners(signal, "abort")).toHaveLength(0);
    }
  });

  it("answers undefined at the deadline and when the hub closes, and leaves it idle", async () => {
    const { id } = await t.services.documents.create({ title: "T", content: "a" });
    const timing = t.services.feed.next(id, 1, { waitSeconds: 5 });
    expect(await waitUntil(() => t.services.hub.stats().waiters === 1)).toBe(true);
    t.clock.advance(5_000);
    expect(await timing).toBeUndefined();
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);

    const { signal } = new AbortController();
    const closing = t.services.feed.next(id, 1, { waitSeconds: 60, signal });
    expect(await waitUntil(() => t.services.hub.stats().waiters === 1)).toBe(true);
    t.services.hub.close();
    expect(await closing).toBeUndefined();
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });
});
