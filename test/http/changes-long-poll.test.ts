import type { LightMyRequestResponse } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp, type TestAppOptions } from "../support/test-app.js";
import { createDocument, expectJson, type DocumentJson } from "../support/http-expect.js";
import { FeedClient, IDLE_HUB, expectNoContent, expectStatus, untilWaiting } from "../support/feed-client.js";

// Waiting: docs/interface.md#change-feed ("woken after the commit"). The waits' timers run on the
// app's ManualClock: a wait runs out only when a test moves the clock past it.

let t: TestApp;
let client: FeedClient;

async function start(options?: TestAppOptions): Promise<void> {
  t = await buildTestApp(options);
  client = new FeedClient(t.app);
}

afterEach(async () => {
  await t.close();
});

/**
 * Starts a long poll and hands it back unawaited (wrapped: an async function would adopt a bare
 * promise) once the hub holds it.
 */
async function waiting(id: string, since: number, wait: number | undefined = 30): Promise<{ poll: Promise<LightMyRequestResponse> }> {
  const before = t.services.hub.stats().waiters;
  const poll = client.changes(id, since, wait);
  await untilWaiting(t.services.hub, before + 1);
  return { poll };
}

describe("GET /documents/{documentId}/changes waiting for a change", () => {
  it("answers a waiting request as soon as a content patch is committed, with its ops and event", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a\nb" });
    const { poll } = await waiting(id, 1);

    expectStatus(await client.patch(id, { baseVersion: 1, base: "a\nb", seq: 7, clientId: "c-ann", displayName: "Ann", ops: [{ op: "replace", index: 1, count: 1, lines: ["B", "C"] }] }), 200);

    expectJson(await poll, 200, {
      fromVersion: 1,
      currentVersion: 2,
      ops: [{ op: "replace", index: 1, count: 1, lines: ["B", "C"] }],
      events: [{ version: 2, changeType: "UPDATED", clientId: "c-ann", displayName: "Ann" }],
    });
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("answers a waiting request after a rename with the RENAMED event and its new title", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const { poll } = await waiting(id, 1);

    expectStatus(await client.rename(id, "Plan B", 1), 200);

    expectJson(await poll, 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "RENAMED", title: "Plan B" }] });
  });

  it("answers a waiting request after a deletion with the DELETED event", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const { poll } = await waiting(id, 1);

    expectStatus(await client.remove(id), 204);

    expectJson(await poll, 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "DELETED" }] });
  });

  it("answers a request waiting on a deleted document after its restore with the RESTORED event", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    expectStatus(await client.remove(id), 204);
    const { poll } = await waiting(id, 2);

    expectStatus(await client.restore(id), 200);

    expectJson(await poll, 200, { fromVersion: 2, currentVersion: 3, ops: [], events: [{ version: 3, changeType: "RESTORED" }] });
  });

  it("answers a waiting request after a PUT with the whole-text diff and the UPDATED event", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a\nb" });
    const { poll } = await waiting(id, 1);

    expectStatus(await client.put(id, "Plan", "a\nc"), 200);

    expectJson(await poll, 200, { fromVersion: 1, currentVersion: 2, ops: [{ op: "replace", index: 1, count: 1, lines: ["c"] }], events: [{ version: 2, changeType: "UPDATED" }] });
  });

  it("holds a request without wait (the default) until a change arrives", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const { poll } = await waiting(id, 1, undefined);

    expectStatus(await client.rename(id, "Plan B", 1), 200);

    expectJson(await poll, 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "RENAMED", title: "Plan B" }] });
  });

  it("keeps waiting through a change of another document and answers the change of its own", async () => {
    await start();
    const watched = await createDocument(t.app, { title: "Watched", content: "a" });
    const other = await createDocument(t.app, { title: "Other", content: "a" });
    const { poll } = await waiting(watched.id, 1);

    expectStatus(await client.rename(other.id, "Other B", 1), 200);
    expect(t.services.hub.stats()).toEqual({ documents: 1, waiters: 1, timers: 1 });
    expectStatus(await client.rename(watched.id, "Watched B", 1), 200);

    expectJson(await poll, 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "RENAMED", title: "Watched B" }] });
  });

  it("answers a request that names the document by its upper-case UUID", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const { poll } = await waiting(id.toUpperCase(), 1);

    expectStatus(await client.rename(id, "Plan B", 1), 200);

    expectJson(await poll, 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "RENAMED", title: "Plan B" }] });
  });

  it("goes back to waiting when woken without a change (a lost-notification reset) and answers the next change", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const polls = [client.changes(id, 1, 30), client.changes(id, 1, 30), client.changes(id, 1, 30)];
    await untilWaiting(t.services.hub, 3);

    t.services.hub.wakeAll();
    await untilWaiting(t.services.hub, 3);
    expectStatus(await client.rename(id, "Plan B", 1), 200);

    for (const answer of await Promise.all(polls)) {
      expectJson(answer, 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "RENAMED", title: "Plan B" }] });
    }
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });
});

describe("GET /documents/{documentId}/changes when the wait runs out", () => {
  /** Whether `poll` has settled, after letting every queued callback run. */
  async function settled(poll: Promise<unknown>): Promise<boolean> {
    let done = false;
    void poll.then(() => (done = true));
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    return done;
  }

  it.each<[string, TestAppOptions | undefined, number]>([
    ["answers 204 with an empty body after wait=1 passes without a change, and leaves no timer", undefined, 1],
    ["clamps wait to max-wait-seconds: wait=100 with a clamp of 1 s answers 204 after a second", { config: (config) => (config.feed.maxWaitSeconds = 1) }, 100],
  ])("%s", async (_name, options, wait) => {
    await start(options);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const { poll } = await waiting(id, 1, wait);

    t.clock.advance(999);
    expect(await settled(poll)).toBe(false);
    t.clock.advance(1);
    expect(await settled(poll)).toBe(true);

    expectNoContent(await poll);
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("answers wait=0 at once with 204 when nothing is new, registering no waiter", async () => {
    await start();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });

    // The clock does not move: an answer proves that nothing waited.
    expectNoContent(await client.changes(id, 1, 0));
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });
});

describe("GET /documents/{documentId}/changes and the commit it reports", () => {
  it("answers a waiter only once the version it reports is visible to GET …/{id} and …/history, over 20 commits", async () => {
    await start();
    const created = await createDocument(t.app, { title: "Plan", content: "line 0" });
    let text = created.content;
    for (let version = 1; version <= 20; version++) {
      const { poll } = await waiting(created.id, version);
      const patch = client.patch(created.id, { baseVersion: version, base: text, seq: version, ops: [{ op: "insert", index: version, lines: [`line ${version}`] }] });

      const answer = await poll;
      const [document, history] = await Promise.all([client.get(created.id), client.history(created.id)]);

      expect(answer.statusCode).toBe(200);
      const reported = answer.json<{ currentVersion: number }>().currentVersion;
      const shown = document.json<DocumentJson>();
      expect(reported).toBeLessThanOrEqual(shown.version);
      expect(history.json<{ version: number }[]>().at(-1)?.version).toBeGreaterThanOrEqual(reported);
      expectStatus(await patch, 200);
      text = `${text}\nline ${version}`;
      expect(shown.content).toBe(text);
    }
  });
});
