import { afterEach, describe, expect, it } from "vitest";
import { createServices, type Services } from "../../src/service/services.js";
import { freshTestStore, type TestApp } from "../support/test-app.js";
import { answerAB, feedAppPerTest, patchAB } from "../support/feed-app.js";
import { createDocument, expectJson, expectProblem, JSON_TYPE, notFound, UNKNOWN_ID } from "../support/http-expect.js";
import { countCalls } from "../support/count-calls.js";
import { DOCUMENTS, IDLE_HUB, expectNoContent, expectStatus, untilWaiting, type FeedClient } from "../support/feed-client.js";

// Polls that share one read and one answer, the reads the feed spares, and commits made by another
// instance whose notices come later (docs/architecture.md, "The long-poll path").

const { started, current } = feedAppPerTest();

describe("GET /documents/{documentId}/changes sharing answers and sparing reads", () => {
  it("sends every waiter woken together the bytes the schema serializer makes, with its own request id", async () => {
    const { app, client } = await started();
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const polls = Array.from({ length: 50 }, () => client.changes(id, 1, 30));
    await untilWaiting(app.services.hub, 50);

    const line = "é ✓ 😀 \"quoted\" \\ </script>";
    expectStatus(await client.patch(id, { ...patchAB, ops: [{ op: "insert", index: 1, lines: [line] }] }), 200);
    const answers = await Promise.all(polls);

    // Required properties first, then the optional ones, in schema order: as the serializer always wrote it.
    const body = `{"currentVersion":2,"events":[{"version":2,"changeType":"UPDATED","clientId":"c-ann"}],"fromVersion":1,"ops":[{"op":"insert","index":1,"lines":[${JSON.stringify(line)}]}]}`;
    for (const answer of answers) {
      expect({ status: answer.statusCode, type: answer.headers["content-type"], length: answer.headers["content-length"], body: answer.body }).toEqual({
        status: 200,
        type: JSON_TYPE,
        length: String(Buffer.byteLength(body)),
        body,
      });
    }
    expect(new Set(answers.map((answer) => answer.headers["x-request-id"])).size).toBe(50);
  });

  it("waits without reading the store when since is the newest version committed, and answers the next commit", async () => {
    const store = await freshTestStore();
    const counts = countCalls(store, ["document", "versions", "version"]);
    const { app, client } = await started({ store });
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    counts.reset();

    const polls = Array.from({ length: 10 }, () => client.changes(id, 1, 30));
    await untilWaiting(app.services.hub, 10);
    expect(counts.calls).toEqual({ document: 0, versions: 0, version: 0 });

    expectStatus(await client.patch(id, patchAB), 200);
    for (const answer of await Promise.all(polls)) expectJson(answer, 200, answerAB);
  });

  it("still reads the store for wait=0 and for a since the service has not seen committed", async () => {
    const store = await freshTestStore();
    const counts = countCalls(store, ["document"]);
    const { app, client } = await started({ store });
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    counts.reset();

    expectNoContent(await client.changes(id, 1, 0));
    expectJson(await client.changes(id, 7, 30), 200, { currentVersion: 1, content: "a", events: [] });
    expectProblem(await client.changes(UNKNOWN_ID, 1, 30), notFound(UNKNOWN_ID, `${DOCUMENTS}/${UNKNOWN_ID}/changes`));

    expect(counts.calls).toEqual({ document: 3 });
  });

  it("answers each poll that follows with the same since from a read of its own: the head row, the versions from memory", async () => {
    const store = await freshTestStore();
    const counts = countCalls(store, ["document", "versions", "version"]);
    const { app, client } = await started({ store });
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    expectStatus(await client.patch(id, patchAB), 200);
    counts.reset();

    const answers = [await client.changes(id, 1, 30), await client.changes(id, 1, 0), await client.changes(id, 1, 30)];

    for (const answer of answers) expectJson(answer, 200, answerAB);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    // Polls one after the other share nothing (diffs kept for a moment by since were measured flat
    // and removed: docs/benchmarks-history.md, sixth session of 2026-11-26); the versions come from the
    // writer's head cache.
    expect(counts.calls).toEqual({ document: 3, versions: 0, version: 0 });
    expect(app.services.hub.stats()).toEqual(IDLE_HUB);

    // A new head is a new answer.
    expectStatus(await client.patch(id, { baseVersion: 2, base: "a\nb", seq: 2, clientId: "c-ann", ops: [{ op: "insert", index: 2, lines: ["c"] }] }), 200);
    expectJson(await client.changes(id, 1, 30), 200, {
      fromVersion: 1,
      currentVersion: 3,
      ops: [{ op: "insert", index: 1, lines: ["b", "c"] }],
      events: [
        { version: 2, changeType: "UPDATED", clientId: "c-ann" },
        { version: 3, changeType: "UPDATED", clientId: "c-ann" },
      ],
    });
  });
});

describe("GET /documents/{documentId}/changes when another instance commits", () => {
  // A second set of services on the same store stands for another instance whose notices have not
  // arrived yet: this app's hub is told of its commits only when the test says so.
  let other: Services | undefined;

  afterEach(async () => {
    other?.quiesce();
    await other?.close();
    other = undefined;
  });

  async function withOtherInstance(): Promise<{ app: TestApp; client: FeedClient; other: Services; id: string }> {
    const { app, client } = await started();
    other = createServices({ config: app.config, store: app.store, clock: app.clock });
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    return { app, client, other, id };
  }

  const updated = (from: number, to: number, ops: unknown[]) => ({
    fromVersion: from,
    currentVersion: to,
    ops,
    events: Array.from({ length: to - from }, (_, i) => ({ version: from + 1 + i, changeType: "UPDATED" })),
  });

  it("reads the store for a since other than the newest version noticed, so an unnoticed commit is answered at once", async () => {
    const { client, other, id } = await withOtherInstance();
    await other.documents.update(id, { title: "Plan", content: "a\nb" });

    expectJson(await client.changes(id, 1, 0), 200, updated(1, 2, [{ op: "insert", index: 1, lines: ["b"] }]));
    // A client that already has version 2 (from the other instance) is no news to anybody here.
    const waiting = client.changes(id, 2, 30);
    await untilWaiting(current().services.hub, 1);
    await other.documents.update(id, { title: "Plan", content: "a\nb\nc" });
    current().services.hub.notify(id, 3);

    expectJson(await waiting, 200, updated(2, 3, [{ op: "insert", index: 2, lines: ["c"] }]));
  });

  it("waits for the notice of a commit past the newest version noticed, and answers it when the notice comes", async () => {
    const { app, client, other, id } = await withOtherInstance();
    await other.documents.update(id, { title: "Plan", content: "a\nb" });

    const waiting = client.changes(id, 1, 30);
    await untilWaiting(app.services.hub, 1);
    app.services.hub.notify(id, 2);

    expectJson(await waiting, 200, updated(1, 2, [{ op: "insert", index: 1, lines: ["b"] }]));
  });

  it("forgets the versions noticed when notices may have been lost: the waiters and the polls after it read the store", async () => {
    const { app, client, other, id } = await withOtherInstance();
    const before = client.changes(id, 1, 30);
    await untilWaiting(app.services.hub, 1);
    await other.documents.update(id, { title: "Plan", content: "a\nb" });

    app.services.hub.wakeAll();

    expectJson(await before, 200, updated(1, 2, [{ op: "insert", index: 1, lines: ["b"] }]));
    await other.documents.update(id, { title: "Plan", content: "a\nb\nc" });
    expectJson(await client.changes(id, 1, 30), 200, updated(1, 3, [{ op: "insert", index: 1, lines: ["b", "c"] }]));
    expectJson(await client.changes(id, 2, 30), 200, updated(2, 3, [{ op: "insert", index: 2, lines: ["c"] }]));
  });

  it("reads the store once for waiters woken by a commit this instance's memory does not hold", async () => {
    const store = await freshTestStore();
    const counts = countCalls(store, ["document", "versionHeads", "versions", "version"]);
    const { app, client } = await started({ store });
    other = createServices({ config: app.config, store, clock: app.clock });
    const { id } = await createDocument(app.app, { title: "Plan", content: "a" });
    const polls = Array.from({ length: 10 }, () => client.changes(id, 1, 30));
    await untilWaiting(app.services.hub, 10);
    await other.documents.update(id, { title: "Plan", content: "a\nb" });
    counts.reset();

    app.services.hub.notify(id, 2);

    for (const answer of await Promise.all(polls)) expectJson(answer, 200, updated(1, 2, [{ op: "insert", index: 1, lines: ["b"] }]));
    // This instance's head cache is at version 1: the shared read goes to the store, once (the
    // versions weighed first, then their ops read).
    expect(counts.calls).toEqual({ document: 1, versionHeads: 1, versions: 1, version: 0 });
  });
});
