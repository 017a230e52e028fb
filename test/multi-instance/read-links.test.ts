import { afterEach, beforeEach, expect, it } from "vitest";
import { checksum, type DocumentJson } from "../support/http-expect.js";
import { describePostgres } from "../support/postgres.js";
import { Cluster, DOCUMENTS, until, type Answer, type Instance } from "./instances.js";

// docs/sharing.md: a read link lives in the database, and nothing of it is cached, so every
// instance sharing the PostgreSQL store answers through a link made, rotated or revoked through
// another at once; a read waiter is woken across instances like a document's own waiter.

const READ = "/api/v1/read";

let cluster: Cluster;

beforeEach(async () => {
  cluster = await Cluster.start(2);
});

afterEach(async () => {
  await cluster?.close();
});

const shown = (answer: Answer) => ({ status: answer.status, body: answer.body });
const noReadLink = (readId: string, path: string) => ({
  status: 404,
  body: { type: "urn:folio:problem:not-found", title: "Not found", status: 404, detail: `no read link ${readId}`, instance: `${READ}/${readId}${path}` },
});

async function documentWithLink(instance: Instance): Promise<{ document: DocumentJson; readId: string }> {
  const created = await cluster.request(instance, "POST", DOCUMENTS, { body: { title: "Plan", content: "a" } });
  expect(created.status).toBe(201);
  const document = created.body as DocumentJson;
  const link = await cluster.request(instance, "POST", `${DOCUMENTS}/${document.id}/read-link`);
  expect(link.status).toBe(201);
  return { document, readId: (link.body as { readId: string }).readId };
}

function appendB(instance: Instance, id: string): Promise<Answer> {
  return cluster.request(instance, "PATCH", `${DOCUMENTS}/${id}/content`, {
    body: { baseVersion: 1, checksum: checksum("a"), clientId: "c-ann", seq: 1, ops: [{ op: "insert", index: 1, lines: ["b"] }] },
  });
}

const answerB = { fromVersion: 1, currentVersion: 2, ops: [{ op: "insert", index: 1, lines: ["b"] }], events: [{ version: 2, changeType: "UPDATED", clientId: "c-ann" }] };
const waiters = (instance: Instance) => instance.services.hub.stats().waiters;

describePostgres("two instances on one PostgreSQL schema: read links", () => {
  it("reads through instance B a link made through instance A", async () => {
    const { a, b } = cluster;
    const { document, readId } = await documentWithLink(a);

    expect(shown(await cluster.request(b, "GET", `${DOCUMENTS}/${document.id}/read-link`))).toEqual({ status: 200, body: { readId } });
    expect(shown(await cluster.request(b, "GET", `${READ}/${readId}`))).toEqual({
      status: 200,
      body: { readId, title: "Plan", content: "a", version: 1, createdAt: document.createdAt, updatedAt: document.updatedAt },
    });
    expect(shown(await cluster.request(b, "GET", `${READ}/${readId}/changes?since=0&wait=0`))).toEqual({
      status: 200,
      body: { currentVersion: 1, content: "a", events: [{ version: 1, changeType: "CREATED" }] },
    });
  });

  it("stops answering on A at once when the link is revoked through B, and on B when it is rotated through A", async () => {
    const { a, b } = cluster;
    const { document, readId } = await documentWithLink(a);
    expect((await cluster.request(b, "GET", `${READ}/${readId}`)).status).toBe(200);
    expect((await cluster.request(a, "GET", `${READ}/${readId}/history`)).status).toBe(200);

    const rotated = await cluster.request(a, "POST", `${DOCUMENTS}/${document.id}/read-link`);
    const newReadId = (rotated.body as { readId: string }).readId;
    expect(shown(await cluster.request(b, "GET", `${READ}/${readId}`))).toEqual(noReadLink(readId, ""));
    expect((await cluster.request(b, "GET", `${READ}/${newReadId}`)).status).toBe(200);
    expect((await cluster.request(a, "GET", `${READ}/${newReadId}/history`)).status).toBe(200);

    expect((await cluster.request(b, "DELETE", `${DOCUMENTS}/${document.id}/read-link`)).status).toBe(204);
    expect(shown(await cluster.request(a, "GET", `${READ}/${newReadId}`))).toEqual(noReadLink(newReadId, ""));
    expect(shown(await cluster.request(a, "GET", `${READ}/${newReadId}/history`))).toEqual(noReadLink(newReadId, "/history"));
    expect(shown(await cluster.request(a, "GET", `${READ}/${newReadId}/changes?since=0&wait=0`))).toEqual(noReadLink(newReadId, "/changes"));
  });

  it("answers 404 on B while the document is deleted through A, and again after B restores it", async () => {
    const { a, b } = cluster;
    const { document, readId } = await documentWithLink(a);

    expect((await cluster.request(a, "DELETE", `${DOCUMENTS}/${document.id}`)).status).toBe(204);
    expect(shown(await cluster.request(b, "GET", `${READ}/${readId}`))).toEqual({
      status: 404,
      body: { type: "urn:folio:problem:not-found", title: "Not found", status: 404, detail: `the document of read link ${readId} is deleted`, instance: `${READ}/${readId}` },
    });
    expect((await cluster.request(b, "POST", `${DOCUMENTS}/${document.id}/restore`)).status).toBe(200);
    expect(shown(await cluster.request(a, "GET", `${READ}/${readId}`))).toEqual({
      status: 200,
      body: { readId, title: "Plan", content: "a", version: 3, createdAt: document.createdAt, updatedAt: document.updatedAt },
    });
  });

  it("wakes a read waiter on B within a second of a patch through A, with the body B's own document waiter gets", async () => {
    const { a, b } = cluster;
    const { document, readId } = await documentWithLink(a);
    const read = cluster.request(b, "GET", `${READ}/${readId}/changes?since=1&wait=10`);
    const own = cluster.request(b, "GET", `${DOCUMENTS}/${document.id}/changes?since=1&wait=10`);
    await until("both waiters on B", () => waiters(b) === 2);

    const patchedAt = performance.now();
    expect((await appendB(a, document.id)).status).toBe(200);
    const [readAnswer, ownAnswer] = await Promise.all([read, own]);

    expect(shown(readAnswer)).toEqual({ status: 200, body: answerB });
    expect(readAnswer.body).toEqual(ownAnswer.body);
    expect(performance.now() - patchedAt).toBeLessThan(1_000);
  });

  it("answers 404 to a read waiter on B whose link was revoked through A before the change came", async () => {
    const { a, b } = cluster;
    const { document, readId } = await documentWithLink(a);
    const read = cluster.request(b, "GET", `${READ}/${readId}/changes?since=1&wait=10`);
    await until("the read waiter on B", () => waiters(b) === 1);

    expect((await cluster.request(a, "DELETE", `${DOCUMENTS}/${document.id}/read-link`)).status).toBe(204);
    expect((await appendB(a, document.id)).status).toBe(200);

    expect(shown(await read)).toEqual(noReadLink(readId, "/changes"));
  });
});
