import { connect, type AddressInfo } from "node:net";
import { Agent, fetch } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ChangeFeed } from "../../src/service/change-feed.js";
import { ChangeHub } from "../../src/service/change-hub.js";
import { ServiceEvents } from "../../src/service/observer.js";
import { freshTestStore, type TestApp } from "../support/test-app.js";
import { answerAB, feedAppPerTest, patchAB } from "../support/feed-app.js";
import { checksum, createDocument, expectJson, JSON_TYPE } from "../support/http-expect.js";
import { countCalls } from "../support/count-calls.js";
import { DOCUMENTS, IDLE_HUB, expectAbortedPollsLeaveHubIdle, expectStatus, untilWaiting } from "../support/feed-client.js";
import { waitUntil } from "../support/wait-until.js";

// What waiting costs: many waiters on one commit, and clients that go away
// (docs/interface.md#change-feed: "a client that goes away while waiting costs nothing afterwards").
// How polls share reads and answers, and commits of another instance: changes-shared-reads.test.ts.

const { started } = feedAppPerTest();

describe("GET /documents/{documentId}/changes with many waiters", () => {
  it("answers 1,000 concurrent waiters on one document with one patch, all with the same body, and keeps nothing", async () => {
    const { app, client } = await started();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const polls = Array.from({ length: 1000 }, () => client.changes(id, 1, 30));
    await untilWaiting(app.services.hub, 1000, { maxMs: 10_000 });

    expectStatus(await client.patch(id, patchAB), 200);
    const answers = await Promise.all(polls);

    expect(answers.map((answer) => answer.statusCode)).toEqual(Array.from({ length: 1000 }, () => 200));
    expect(new Set(answers.map((answer) => answer.headers["content-type"]))).toEqual(new Set([JSON_TYPE]));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expectJson(answers[0]!, 200, answerAB);
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("holds a poll whose news the open window gathers until the window's end, but answers an older since at once", async () => {
    const { app, client } = await started();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    // A feed of its own on the app's store, with a hub whose windows are long enough to watch
    // (200 ms per waiter, at most 1 s); the test tells it of the commits.
    const hub = new ChangeHub({ msPerWaiter: 200, maxCoalesceMs: 1000 });
    const feed = new ChangeFeed({ store: app.store, texts: app.services.texts, hub, clock: app.clock, maxWaitSeconds: 60 });
    hub.notify(id, 1);
    const early = Array.from({ length: 5 }, () => feed.changes(id, 1, 30));
    await waitUntil(() => hub.stats().waiters === 5);
    expectStatus(await client.patch(id, patchAB), 200);
    // The commit wakes the five at once and opens a window of a second.
    hub.notify(id, 2);
    expect(new Set(await Promise.all(early)).size).toBe(1);
    const first = feed.changes(id, 2, 30);
    await waitUntil(() => hub.stats().waiters === 1);
    expectStatus(await client.patch(id, { baseVersion: 2, base: "a\nb", seq: 2, clientId: "c-ann", ops: [{ op: "insert", index: 2, lines: ["c"] }] }), 200);
    hub.notify(id, 3);
    expect(hub.gathers(id, 2)).toBe(true);

    const held = feed.changes(id, 2, 30);
    await waitUntil(() => hub.stats().waiters === 2);
    const behind = await feed.changes(id, 1, 30);
    expect(behind).toMatchObject({ fromVersion: 1, currentVersion: 3, events: [{ version: 2 }, { version: 3 }] });
    expect(hub.stats().waiters).toBe(2);

    const [a, b] = await Promise.all([first, held]);
    expect(a).toMatchObject({ fromVersion: 2, currentVersion: 3, events: [{ version: 3, changeType: "UPDATED", clientId: "c-ann" }] });
    expect(b).toBe(a);
    expect(hub.gathers(id, 2)).toBe(false);
    expect(hub.stats()).toEqual(IDLE_HUB);
  });

  it("computes one answer for 100 waiters with the same since woken by one commit: one read of the store", async () => {
    const store = await freshTestStore();
    const counts = countCalls(store, ["document", "versions", "version"]);
    const { app, client } = await started({ store });
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const polls = Array.from({ length: 100 }, () => client.changes(id, 1, 30));
    await untilWaiting(app.services.hub, 100);
    counts.reset();

    expectStatus(await client.patch(id, patchAB), 200);
    const answers = await Promise.all(polls);

    for (const answer of answers) expectJson(answer, 200, answerAB);
    // The versions come from the writer's memory: the head is the only read of the store. (Answering
    // from the head cache without the head row was tried and measured: it answered the authors sooner
    // but more often, costing CPU; docs/benchmarks-history.md, third session of 2026-11-25.)
    expect(counts.calls).toEqual({ document: 1, versions: 0, version: 0 });
  });
});

describe("ChangeFeed when an observer throws", () => {
  it("fails the poll with the observer's error, once it answered or once it was woken, and keeps no waiter", async () => {
    const { app, client } = await started();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const hub = new ChangeHub();
    const events = new ServiceEvents();
    const broken = { answer: new Error("the answer's observer broke"), wakeup: new Error("the wake-up's observer broke") };
    events.add({
      feedAnswer: () => {
        throw broken.answer;
      },
      feedWakeup: () => {
        throw broken.wakeup;
      },
    });
    const feed = new ChangeFeed({ store: app.store, texts: app.services.texts, hub, clock: app.clock, maxWaitSeconds: 60, events });

    await expect(feed.changes(id, 0, 0)).rejects.toBe(broken.answer);
    const woken = feed.changes(id, 1, 30);
    await waitUntil(() => hub.stats().waiters === 1);
    expectStatus(await client.patch(id, patchAB), 200);
    hub.notify(id, 2);
    await expect(woken).rejects.toBe(broken.wakeup);
    expect(hub.stats()).toEqual(IDLE_HUB);
  });
});

describe("GET /documents/{documentId}/changes when the client goes away", () => {
  // Real sockets on the loopback interface: only a closed connection shows what a vanished client costs.
  // The agent is destroyed before the app closes: undici keeps spare connections open that never carry
  // a request, and the server's close would wait for them.
  let agent: Agent | undefined;

  afterEach(async () => {
    await agent?.destroy();
    agent = undefined;
  });

  async function listening(app: TestApp): Promise<{ address: string; agent: Agent }> {
    agent = new Agent();
    return { address: await app.app.listen({ host: "127.0.0.1", port: 0 }), agent };
  }

  it("leaves no waiter and no timer behind when 50 clients on real sockets abort their waits", async () => {
    const { app } = await started();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const { address, agent } = await listening(app);
    const controllers = Array.from({ length: 50 }, () => new AbortController());
    const requests = controllers.map((controller) =>
      fetch(`${address}${DOCUMENTS}/${id}/changes?since=1&wait=30`, { signal: controller.signal, dispatcher: agent }).then(
        (response) => `answered ${response.status}`,
        (error: Error) => error.name,
      ),
    );
    await untilWaiting(app.services.hub, 50);

    for (const controller of controllers) controller.abort();

    expect(await Promise.all(requests)).toEqual(Array.from({ length: 50 }, () => "AbortError"));
    expect(await waitUntil(() => app.services.hub.stats().waiters === 0 && app.services.hub.stats().timers === 0)).toBe(true);
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("still answers the waiters that stay when others abort", async () => {
    const { app } = await started();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const { address, agent } = await listening(app);
    const url = `${address}${DOCUMENTS}/${id}/changes?since=1&wait=30`;
    const leaving = Array.from({ length: 10 }, () => new AbortController());
    const gone = leaving.map((controller) => fetch(url, { signal: controller.signal, dispatcher: agent }).catch((error: Error) => error.name));
    const staying = Array.from({ length: 10 }, () =>
      fetch(url, { dispatcher: agent }).then(async (response) => ({ status: response.status, body: await response.json() })),
    );
    await untilWaiting(app.services.hub, 20);

    for (const controller of leaving) controller.abort();
    await untilWaiting(app.services.hub, 10);
    const patch = await fetch(`${address}${DOCUMENTS}/${id}/content`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ baseVersion: 1, checksum: checksum("a"), seq: 1, clientId: "c-ann", ops: patchAB.ops }),
      dispatcher: agent,
    });

    expect(patch.status).toBe(200);
    expect(await Promise.all(gone)).toEqual(Array.from({ length: 10 }, () => "AbortError"));
    expect(await Promise.all(staying)).toEqual(Array.from({ length: 10 }, () => ({ status: 200, body: answerAB })));
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("leaves nothing behind when clients drop their connections right after sending the request", async () => {
    const { app } = await started();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    await listening(app);
    let received = 0;
    app.app.server.on("request", () => received++);
    const { port } = app.app.server.address() as AddressInfo;
    const sockets = Array.from({ length: 20 }, () => connect({ host: "127.0.0.1", port }));
    await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once("connect", resolve))));

    for (const socket of sockets) {
      socket.write(`GET ${DOCUMENTS}/${id}/changes?since=1&wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      socket.destroy();
    }

    expect(await waitUntil(() => received === 20 && app.services.hub.stats().waiters === 0)).toBe(true);
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("leaves no waiter and no timer behind when injected requests are aborted", async () => {
    const { app, client } = await started();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    await expectAbortedPollsLeaveHubIdle(app.services.hub, 20, (signal) => client.changes(id, 1, 30, signal));
  });
});
