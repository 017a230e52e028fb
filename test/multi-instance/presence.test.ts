import { afterEach, beforeEach, expect, it } from "vitest";
import type { DocumentJson } from "../support/http-expect.js";
import { describePostgres } from "../support/postgres.js";
import { openEventStream, presenceFrame } from "../support/event-stream-client.js";
import { Cluster, DOCUMENTS, until, type Instance } from "./instances.js";

// docs/api.md, "Presence": each instance holds its entries in memory and tells the others through
// PostgreSQL's NOTIFY (never stored), so a list and a stream on one instance show who announced
// themselves on another, within a second.

let cluster: Cluster;

async function createDocument(instance: Instance): Promise<DocumentJson> {
  const answer = await cluster.request(instance, "POST", DOCUMENTS, { body: { title: "Plan", content: "a" } });
  expect(answer.status).toBe(201);
  return answer.body as DocumentJson;
}

const T0 = "2026-01-05T10:00:00.000Z";
const ANN = { clientId: "c-ann", role: "editor", state: { cursor: 3 }, updatedAt: T0, displayName: "Ann" };

describePostgres("two instances on one PostgreSQL schema: presence", () => {
  beforeEach(async () => {
    cluster = await Cluster.start(2);
  });

  afterEach(async () => {
    await cluster?.close();
  });

  it("lists on B, within a second, a client that announced itself on A, and forgets it on A's goodbye", async () => {
    const { a, b } = cluster;
    const { id } = await createDocument(a);
    const path = `${DOCUMENTS}/${id}/presence`;

    const sentAt = performance.now();
    expect((await cluster.request(a, "PUT", `${path}/c-ann`, { body: { displayName: "Ann", state: { cursor: 3 } } })).status).toBe(204);
    await until("the entry on B", () => b.services.presence.size === 1, 1_000);
    expect(performance.now() - sentAt).toBeLessThan(1_000);

    expect(await cluster.request(b, "GET", path)).toMatchObject({ status: 200, body: { clients: [ANN] } });
    expect((await cluster.request(b, "DELETE", `${path}/c-ann`)).status).toBe(204);
    await until("the goodbye on A", () => a.services.presence.size === 0, 1_000);
    expect(await cluster.request(a, "GET", path)).toMatchObject({ status: 200, body: { clients: [] } });
  });

  it("sends event: presence on B's stream within a second of an update on A", async () => {
    const { a, b } = cluster;
    const { id } = await createDocument(a);
    const events = await openEventStream(b.origin, `${DOCUMENTS}/${id}/events?since=1`);
    expect(await events.next()).toEqual({ comment: "open" });
    await until("B's stream listening", () => b.services.presence.watchedDocuments === 1);

    const sentAt = performance.now();
    expect((await cluster.request(a, "PUT", `${DOCUMENTS}/${id}/presence/c-ann`, { body: { displayName: "Ann", state: { cursor: 3 } } })).status).toBe(204);
    const frame = await events.next(5_000);
    const elapsedMs = performance.now() - sentAt;

    expect(frame).toEqual(presenceFrame(JSON.stringify({ clients: [{ clientId: "c-ann", role: "editor", state: { cursor: 3 }, updatedAt: T0, displayName: "Ann" }] })));
    expect(elapsedMs).toBeLessThan(1_000);
    events.close();
  });
});
