import { beforeEach, describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { T0, at, contentTooLarge, createDocument, expectJson, expectProblem, expectProblemRetryAfter, invalid } from "../support/http-expect.js";
import { FeedClient, expectNoContent } from "../support/feed-client.js";
import { PresenceClient, present } from "../support/presence-client.js";
import { READ, ReadLinkClient, noReadLink, readLinkOfDeleted, visible } from "../support/read-link-client.js";

// docs/api.md, "Presence": the list through a read-only link, and viewers announcing themselves
// there. Runs on SQLite and (project "postgres") on PostgreSQL.

const t = appPerTest({ config: (config) => void (config.presence.maxClients = 2) });
let presence: PresenceClient;
let links: ReadLinkClient;
let docs: FeedClient;

beforeEach(() => {
  presence = new PresenceClient(t.app);
  links = new ReadLinkClient(t.app);
  docs = new FeedClient(t.app);
});

const CURSOR = { cursor: { line: 1, column: 2 } };
const path = (readId: string, clientId = "") => `${READ}/${readId}/presence${clientId === "" ? "" : `/${clientId}`}`;

/** A document with a read link, and the ids of both. */
async function shared(): Promise<{ id: string; readId: string }> {
  const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
  return { id, readId: await links.newReadId(id) };
}

describe("GET /read/{readId}/presence", () => {
  it("shows the document's list, editors and viewers, and never the document's id", async () => {
    const { id, readId } = await shared();
    expectNoContent(await presence.set(id, "c-ann", { displayName: "Ann", state: CURSOR }));
    t.clock.advance(500);
    expectNoContent(await presence.readSet(readId, "c-vi", { displayName: "Vi", state: {} }));
    const clients = [present("c-ann", "editor", CURSOR, T0, "Ann"), present("c-vi", "viewer", {}, at(500), "Vi")];

    const read = await presence.readList(readId);

    expectJson(read, 200, { clients });
    expectJson(await presence.list(id), 200, { clients });
    expect(visible(read)).not.toContain(id);
  });

  it("takes the read id in either case", async () => {
    const { id, readId } = await shared();
    expectNoContent(await presence.readSet(readId.toUpperCase(), "c-vi", { state: {} }));

    expectJson(await presence.readList(readId.toUpperCase()), 200, { clients: [present("c-vi", "viewer", {}, T0)] });
    expectJson(await presence.list(id), 200, { clients: [present("c-vi", "viewer", {}, T0)] });
  });

  it("answers 404 for an unknown or revoked read id, and for a deleted document without naming it", async () => {
    const { id, readId } = await shared();
    const revoked = await shared();
    expectNoContent(await links.revoke(revoked.id));
    expect((await docs.remove(id)).statusCode).toBe(204);

    for (const [gone, problem] of [
      [readId, readLinkOfDeleted],
      [revoked.readId, noReadLink],
    ] as const) {
      expectProblem(await presence.readList(gone), problem(gone, path(gone)));
      expectProblem(await presence.readSet(gone, "c-vi", { state: {} }), problem(gone, path(gone, "c-vi")));
      const removed = await presence.readRemove(gone, "c-vi");
      expectProblem(removed, problem(gone, path(gone, "c-vi")));
      expect(visible(removed)).not.toContain(id);
    }
    expectProblem(await presence.readList("not-a-uuid"), invalid('params.readId: must match format "uuid"', path("not-a-uuid")));
  });
});

describe("PUT and DELETE /read/{readId}/presence/{clientId}", () => {
  it("keeps a viewer's entry apart from an editor's of the same client id: it neither replaces nor removes it", async () => {
    const { id, readId } = await shared();
    expectNoContent(await presence.set(id, "c-ann", { displayName: "Ann", state: CURSOR }));

    expectNoContent(await presence.readSet(readId, "c-ann", { displayName: "Mallory", state: {} }));
    expectJson(await presence.list(id), 200, { clients: [present("c-ann", "editor", CURSOR, T0, "Ann"), present("c-ann", "viewer", {}, T0, "Mallory")] });

    expectNoContent(await presence.readRemove(readId, "c-ann"));
    expectNoContent(await presence.readRemove(readId, "c-ann"));
    expectJson(await presence.readList(readId), 200, { clients: [present("c-ann", "editor", CURSOR, T0, "Ann")] });
  });

  it("lets a viewer's entry expire like an editor's, and holds viewers to the same bounds", async () => {
    const { id, readId } = await shared();
    expectNoContent(await presence.readSet(readId, "c-vi", { state: {} }));
    expectNoContent(await presence.set(id, "c-ann", { state: {} }));

    expectProblem(await presence.readSet(readId, "c-vi", { state: { s: "x".repeat(2041) } }), contentTooLarge("the presence state is 2049 bytes as JSON; at most 2048", path(readId, "c-vi")));
    expectProblemRetryAfter(
      await presence.readSet(readId, "c-new", { state: {} }),
      { status: 429, code: "presence-full", title: "Presence full", detail: "this document has 2 clients present, the most it holds; retry in 30 s", instance: path(readId, "c-new") },
      30,
    );
    t.clock.advance(30_000);
    expectJson(await presence.readList(readId), 200, { clients: [] });
    expectNoContent(await presence.readSet(readId, "c-new", { state: {} }));
  });

  it("stores nothing: the document, its history and its feed stay as they were", async () => {
    const { id, readId } = await shared();
    const before = await docs.history(id);

    expectNoContent(await presence.readSet(readId, "c-vi", { displayName: "Vi", state: CURSOR }));
    expectNoContent(await presence.readRemove(readId, "c-vi"));

    expectJson(await docs.history(id), 200, before.json());
    expectNoContent(await docs.changes(id, 1, 0));
  });
});
