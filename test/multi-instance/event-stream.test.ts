import { afterEach, beforeEach, expect, it } from "vitest";
import { checksum, type DocumentJson } from "../support/http-expect.js";
import { describePostgres } from "../support/postgres.js";
import { change, openEventStream } from "../support/event-stream-client.js";
import { Cluster, DOCUMENTS, until, type Instance } from "./instances.js";

// docs/api.md, "The event stream": a stream open on one instance gets a change committed through
// another within moments, woken by the same PostgreSQL notification as a long poll.

let cluster: Cluster;

async function createDocument(instance: Instance, content: string): Promise<DocumentJson> {
  const answer = await cluster.request(instance, "POST", DOCUMENTS, { body: { title: "Plan", content } });
  expect(answer.status).toBe(201);
  return answer.body as DocumentJson;
}

const waiters = (instance: Instance) => instance.services.hub.stats().waiters;
const appendB = { baseVersion: 1, checksum: checksum("a"), clientId: "c-ann", seq: 1, ops: [{ op: "insert", index: 1, lines: ["b"] }] };
const answerB = '{"currentVersion":2,"events":[{"version":2,"changeType":"UPDATED","clientId":"c-ann"}],"fromVersion":1,"ops":[{"op":"insert","index":1,"lines":["b"]}]}';

describePostgres("two instances on one PostgreSQL schema: event streams", () => {
  beforeEach(async () => {
    cluster = await Cluster.start(2);
  });

  afterEach(async () => {
    await cluster?.close();
  });

  it("delivers a patch made through instance A to a stream open on instance B within a second", async () => {
    const { a, b } = cluster;
    const { id } = await createDocument(a, "a");
    const events = await openEventStream(b.origin, `${DOCUMENTS}/${id}/events?since=1`);
    expect(await events.next()).toEqual({ comment: "open" });
    await until("the stream's wait on B", () => waiters(b) === 1);

    const patchedAt = performance.now();
    const patched = await cluster.request(a, "PATCH", `${DOCUMENTS}/${id}/content`, { body: appendB });
    const frame = await events.next(5_000);
    const elapsedMs = performance.now() - patchedAt;

    expect(patched.status).toBe(200);
    expect(frame).toEqual(change(2, answerB));
    expect(elapsedMs).toBeLessThan(1_000);
    events.close();
  });

  it("ends a read link's stream on B at the first change after the link was revoked through A", async () => {
    const { a, b } = cluster;
    const { id } = await createDocument(a, "a");
    const link = await cluster.request(a, "POST", `${DOCUMENTS}/${id}/read-link`);
    const { readId } = link.body as { readId: string };
    const events = await openEventStream(b.origin, `/api/v1/read/${readId}/events?since=1`);
    expect(await events.next()).toEqual({ comment: "open" });
    await until("the stream's wait on B", () => waiters(b) === 1);

    expect((await cluster.request(a, "DELETE", `${DOCUMENTS}/${id}/read-link`)).status).toBe(204);
    expect((await cluster.request(a, "PATCH", `${DOCUMENTS}/${id}/content`, { body: appendB })).status).toBe(200);

    expect(await events.rest(5_000)).toBe("");
  });
});
