import type { LightMyRequestResponse } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { createDocument, expectJson, expectProblem } from "../support/http-expect.js";
import { FeedClient, IDLE_HUB, expectAbortedPollsLeaveHubIdle, expectNoContent, expectStatus, untilWaiting } from "../support/feed-client.js";
import { READ, ReadLinkClient, noReadLink } from "../support/read-link-client.js";

// docs/sharing.md: GET /read/{readId}/changes is the document's own long poll, answer for answer:
// a read waiter is one of the document's waiters (the same hub, reads, wake-ups and shutdown).
// Runs on SQLite and (project "postgres") on PostgreSQL.

let t: TestApp | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Started {
  app: TestApp;
  docs: FeedClient;
  links: ReadLinkClient;
  id: string;
  readId: string;
}

/** An app with one document ("a", version 1) that has a read link. */
async function started(): Promise<Started> {
  const app = (t = await buildTestApp());
  const docs = new FeedClient(app.app);
  const links = new ReadLinkClient(app.app);
  const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
  return { app, docs, links, id, readId: await links.newReadId(id) };
}

const appendB = { baseVersion: 1, base: "a", seq: 1, clientId: "c-ann", displayName: "Ann", ops: [{ op: "insert" as const, index: 1, lines: ["b"] }] };
const answerB = { fromVersion: 1, currentVersion: 2, ops: [{ op: "insert", index: 1, lines: ["b"] }], events: [{ version: 2, changeType: "UPDATED", clientId: "c-ann", displayName: "Ann" }] };

const statusAndBody = (response: LightMyRequestResponse) => ({ status: response.statusCode, type: response.headers["content-type"], body: response.body });

describe("GET /read/{readId}/changes without waiting", () => {
  it("answers exactly what the document's own feed answers, for every since", async () => {
    const { app, docs, links, id, readId } = await started();
    expectStatus(await docs.patch(id, appendB), 200);
    expectStatus(await docs.rename(id, "Plan B", 2), 200);
    app.clock.advance(1_000);
    expectStatus(await docs.put(id, "Plan C", "x\ny"), 200);

    for (const since of [0, 1, 2, 3, 4, 7]) {
      const own = await docs.changes(id, since, 0);
      const read = await links.changes(readId, since, 0);
      expect(statusAndBody(read), `since=${since}`).toEqual(statusAndBody(own));
    }
    expectJson(await links.changes(readId, 2, 0), 200, {
      fromVersion: 2,
      currentVersion: 4,
      ops: [{ op: "replace", index: 0, count: 2, lines: ["x", "y"] }],
      events: [
        { version: 3, changeType: "RENAMED", title: "Plan B" },
        { version: 4, changeType: "UPDATED" },
      ],
    });
  });

  it("delivers a deleted document's DELETED event, and RESTORED after the restore", async () => {
    const { docs, links, id, readId } = await started();
    expectStatus(await docs.remove(id), 204);

    expectJson(await links.changes(readId, 1, 0), 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "DELETED" }] });
    expectStatus(await docs.restore(id), 200);
    expectJson(await links.changes(readId, 2, 0), 200, { fromVersion: 2, currentVersion: 3, ops: [], events: [{ version: 3, changeType: "RESTORED" }] });
  });
});

describe("GET /read/{readId}/changes waiting", () => {
  it("waits as one of the document's waiters: one commit answers it and the document's own waiter with the same bytes", async () => {
    const { app, docs, links, id, readId } = await started();
    const read = links.changes(readId, 1, 30);
    const own = docs.changes(id, 1, 30);
    await untilWaiting(app.services.hub, 2);

    expectStatus(await docs.patch(id, appendB), 200);

    const [readAnswer, ownAnswer] = await Promise.all([read, own]);
    expectJson(readAnswer, 200, answerB);
    expect(readAnswer.body).toBe(ownAnswer.body);
    expect(readAnswer.body).not.toContain(id);
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("answers 204 when the wait runs out", async () => {
    const { app, links, readId } = await started();
    const read = links.changes(readId, 1, 5);
    await untilWaiting(app.services.hub, 1);

    app.clock.advance(5_000);

    expectNoContent(await read);
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("wakes 50 read followers with one commit: one answer, one link check shared by all of them", async () => {
    const { app, docs, links, id, readId } = await started();
    const documentOf = app.store.readLinks.documentOf.bind(app.store.readLinks);
    let checks = 0;
    app.store.readLinks.documentOf = (value) => (checks++, documentOf(value));
    const polls = Array.from({ length: 50 }, () => links.changes(readId, 1, 30));
    await untilWaiting(app.services.hub, 50);
    expect(checks).toBe(50);

    expectStatus(await docs.patch(id, appendB), 200);
    const answers = await Promise.all(polls);

    expect(new Set(answers.map((answer) => `${answer.statusCode} ${answer.body}`)).size).toBe(1);
    expectJson(answers[0]!, 200, answerB);
    expect(checks).toBe(51);
  });

  it("answers 404 instead of a change when the link was revoked while the request waited", async () => {
    const { app, docs, links, id, readId } = await started();
    const read = links.changes(readId, 1, 30);
    await untilWaiting(app.services.hub, 1);

    expectNoContent(await links.revoke(id));
    expectStatus(await docs.patch(id, appendB), 200);

    expectProblem(await read, noReadLink(readId, `${READ}/${readId}/changes`));
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("answers 404 on the old link and the change on the new one when the link was rotated while both waited", async () => {
    const { app, docs, links, id, readId } = await started();
    const old = links.changes(readId, 1, 30);
    await untilWaiting(app.services.hub, 1);
    const newReadId = await links.newReadId(id);
    const fresh = links.changes(newReadId, 1, 30);
    await untilWaiting(app.services.hub, 2);

    expectStatus(await docs.patch(id, appendB), 200);

    expectProblem(await old, noReadLink(readId, `${READ}/${readId}/changes`));
    expectJson(await fresh, 200, answerB);
  });

  it("wakes a read waiter with the DELETED event of its document", async () => {
    const { app, docs, links, id, readId } = await started();
    const read = links.changes(readId, 1, 30);
    await untilWaiting(app.services.hub, 1);

    expectStatus(await docs.remove(id), 204);

    expectJson(await read, 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "DELETED" }] });
  });

  it("leaves no waiter behind when the clients go away", async () => {
    const { app, links, readId } = await started();
    await expectAbortedPollsLeaveHubIdle(app.services.hub, 10, (signal) => links.changes(readId, 1, 30, signal));
  });

  it("answers every read waiter with 204 at once when the app shuts down", async () => {
    const { app, docs, links, id, readId } = await started();
    const polls = [...Array.from({ length: 5 }, () => links.changes(readId, 1, 30)), ...Array.from({ length: 5 }, () => docs.changes(id, 1, 30))];
    await untilWaiting(app.services.hub, 10);

    t = undefined;
    await app.close();

    for (const answer of await Promise.all(polls)) expectNoContent(answer);
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);
  });
});
