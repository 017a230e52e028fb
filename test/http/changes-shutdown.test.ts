import { connect } from "node:net";
import type { LightMyRequestResponse } from "fastify";
import { Agent, fetch } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { createDocument } from "../support/http-expect.js";
import { DOCUMENTS, FeedClient, IDLE_HUB, expectNoContent, untilWaiting } from "../support/feed-client.js";

// docs/interface.md#change-feed: "on shutdown waiting requests get their 204 at once". Each test closes its app itself;
// the wait of 30 s is far beyond the bound, so only the shutdown can have answered.

let agent: Agent | undefined;

afterEach(async () => {
  await agent?.destroy();
  agent = undefined;
});

describe("GET /documents/{documentId}/changes during shutdown", () => {
  it("answers every waiting request with 204 at once when the app closes", async () => {
    const t: TestApp = await buildTestApp();
    const client = new FeedClient(t.app);
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const other = await createDocument(t.app, { title: "Other", content: "b" });
    const polls: Promise<LightMyRequestResponse>[] = [
      ...Array.from({ length: 10 }, () => client.changes(id, 1, 30)),
      ...Array.from({ length: 5 }, () => client.changes(other.id, 1, 30)),
    ];
    await untilWaiting(t.services.hub, 15);
    const started = performance.now();

    await t.close();
    const answers = await Promise.all(polls);

    expect(performance.now() - started).toBeLessThan(5_000);
    for (const answer of answers) expectNoContent(answer);
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("answers requests waiting on real sockets with 204 at once when the server closes", async () => {
    const t: TestApp = await buildTestApp();
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const address = await t.app.listen({ host: "127.0.0.1", port: 0 });
    agent = new Agent();
    const dispatcher = agent;
    const started = performance.now();
    const requests = Array.from({ length: 10 }, () =>
      fetch(`${address}${DOCUMENTS}/${id}/changes?since=1&wait=30`, { dispatcher }).then(async (response) => ({
        status: response.status,
        body: await response.text(),
        elapsedMs: performance.now() - started,
      })),
    );
    await untilWaiting(t.services.hub, 10);
    const closing = t.close();

    const answers = await Promise.all(requests);

    expect(answers.map(({ status, body }) => ({ status, body }))).toEqual(Array.from({ length: 10 }, () => ({ status: 204, body: "" })));
    expect(Math.max(...answers.map((answer) => answer.elapsedMs))).toBeLessThan(5_000);
    await agent.destroy();
    await closing;
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("closes promptly while a client holds a connection that never sent a request", async () => {
    const t: TestApp = await buildTestApp();
    const address = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = new URL(address);
    const socket = connect({ host: "127.0.0.1", port: Number(port) });
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    const started = performance.now();

    try {
      await t.close();
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      socket.destroy();
    }
  });
});
