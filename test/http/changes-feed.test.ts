import { beforeEach, describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { UNKNOWN_ID, createDocument, expectJson, expectProblem, invalid, notFound } from "../support/http-expect.js";
import { DOCUMENTS, FeedClient, IDLE_HUB, expectNoContent, expectStatus } from "../support/feed-client.js";

// The answers of GET …/changes when something is new (or never can be): docs/interface.md#change-feed
// (everything since `since`, the DELETED event, full content when compacted or since=0). Waiting is in changes-long-poll.test.ts.

const t = appPerTest();
let client: FeedClient;

beforeEach(() => {
  client = new FeedClient(t.app);
});

const sender = { clientId: "client-1", displayName: "Ann" };

describe("GET /documents/{documentId}/changes with since=0", () => {
  it("answers the full content and every event, oldest first, without fromVersion or ops", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a\nb" });
    expectStatus(await client.patch(id, { baseVersion: 1, base: "a\nb", seq: 1, ...sender, ops: [{ op: "insert", index: 2, lines: ["c"] }] }), 200);

    expectJson(await client.changes(id, 0), 200, {
      currentVersion: 2,
      content: "a\nb\nc",
      events: [
        { version: 1, changeType: "CREATED" },
        { version: 2, changeType: "UPDATED", ...sender },
      ],
    });
  });

  it("answers a new document at once with its content and its CREATED event, even with a long wait", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "" });

    expectJson(await client.changes(id, 0, 30), 200, { currentVersion: 1, content: "", events: [{ version: 1, changeType: "CREATED" }] });
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });
});

describe("GET /documents/{documentId}/changes with an older since", () => {
  /** "a b c" patched to "A b c" (v2, Ann) and then to "A c d" (v3, anonymous client-2). */
  async function patchedTwice(): Promise<string> {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a\nb\nc" });
    expectStatus(await client.patch(id, { baseVersion: 1, base: "a\nb\nc", seq: 1, ...sender, ops: [{ op: "replace", index: 0, count: 1, lines: ["A"] }] }), 200);
    expectStatus(
      await client.patch(id, {
        baseVersion: 2,
        base: "A\nb\nc",
        seq: 1,
        clientId: "client-2",
        ops: [
          { op: "delete", index: 1, count: 1 },
          { op: "insert", index: 3, lines: ["d"] },
        ],
      }),
      200,
    );
    return id;
  }

  it("answers the ops composed from since to the current version and the events after since", async () => {
    const id = await patchedTwice();

    expectJson(await client.changes(id, 1), 200, {
      fromVersion: 1,
      currentVersion: 3,
      ops: [
        { op: "replace", index: 0, count: 2, lines: ["A"] },
        { op: "insert", index: 3, lines: ["d"] },
      ],
      events: [
        { version: 2, changeType: "UPDATED", ...sender },
        { version: 3, changeType: "UPDATED", clientId: "client-2" },
      ],
    });
  });

  it("answers the ops of the one version after since when since is the version before the current one", async () => {
    const id = await patchedTwice();

    expectJson(await client.changes(id, 2), 200, {
      fromVersion: 2,
      currentVersion: 3,
      ops: [
        { op: "delete", index: 1, count: 1 },
        { op: "insert", index: 3, lines: ["d"] },
      ],
      events: [{ version: 3, changeType: "UPDATED", clientId: "client-2" }],
    });
  });

  it("answers 204 at once for wait=0 when since is the current version", async () => {
    const id = await patchedTwice();

    expectNoContent(await client.changes(id, 3, 0));
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("reports a patch's clientId and displayName on its event and leaves them out where the version has none", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    expectStatus(await client.patch(id, { baseVersion: 1, base: "a", seq: 1, clientId: "c-ann", displayName: "Ann", ops: [{ op: "insert", index: 1, lines: ["b"] }] }), 200);
    expectStatus(await client.patch(id, { baseVersion: 2, base: "a\nb", seq: 1, clientId: "c-bob", ops: [{ op: "insert", index: 2, lines: ["c"] }] }), 200);
    expectStatus(await client.put(id, "Plan", "a\nb\nc\nd"), 200);

    expectJson(await client.changes(id, 1), 200, {
      fromVersion: 1,
      currentVersion: 4,
      ops: [{ op: "insert", index: 1, lines: ["b", "c", "d"] }],
      events: [
        { version: 2, changeType: "UPDATED", clientId: "c-ann", displayName: "Ann" },
        { version: 3, changeType: "UPDATED", clientId: "c-bob" },
        { version: 4, changeType: "UPDATED" },
      ],
    });
  });
});

describe("GET /documents/{documentId}/changes events", () => {
  it("reports CREATED, UPDATED by PUT, RENAMED with its new title, ROLLED_BACK, DELETED and RESTORED, oldest first", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "one" });
    expectStatus(await client.put(id, "Plan", "two"), 200);
    expectStatus(await client.rename(id, "Plan B", 2), 200);
    expectStatus(await client.restore(id, 1), 200);
    expectStatus(await client.remove(id), 204);
    expectStatus(await client.restore(id), 200);

    const events = [
      { version: 1, changeType: "CREATED" },
      { version: 2, changeType: "UPDATED" },
      { version: 3, changeType: "RENAMED", title: "Plan B" },
      { version: 4, changeType: "ROLLED_BACK" },
      { version: 5, changeType: "DELETED" },
      { version: 6, changeType: "RESTORED" },
    ];
    expectJson(await client.changes(id, 0), 200, { currentVersion: 6, content: "one", events });
    expectJson(await client.changes(id, 2), 200, {
      fromVersion: 2,
      currentVersion: 6,
      ops: [{ op: "replace", index: 0, count: 1, lines: ["one"] }],
      events: events.slice(2),
    });
  });

  it("carries the title only on RENAMED, the new one each time", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "x" });
    expectStatus(await client.rename(id, "Plan B", 1), 200);
    expectStatus(await client.put(id, "Plan C", "x"), 200);
    expectStatus(await client.rename(id, "Plan D", 3), 200);

    expectJson(await client.changes(id, 1), 200, {
      fromVersion: 1,
      currentVersion: 4,
      ops: [],
      events: [
        { version: 2, changeType: "RENAMED", title: "Plan B" },
        { version: 3, changeType: "UPDATED" },
        { version: 4, changeType: "RENAMED", title: "Plan D" },
      ],
    });
  });
});

describe("GET /documents/{documentId}/changes with since ahead of the current version", () => {
  it("answers the full content and no events, at once even with a long wait", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a\nb" });

    expectJson(await client.changes(id, 5, 30), 200, { currentVersion: 1, content: "a\nb", events: [] });
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("answers the full content for a since far beyond any version", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });

    expectJson(await client.changes(id, "9007199254740991"), 200, { currentVersion: 1, content: "a", events: [] });
  });
});

describe("GET /documents/{documentId}/changes with a compacted since", () => {
  const RETENTION_MS = 86_400_000;

  /** Versions 1 (CREATED "v1") to 4 (sync patches to "v2", "v3", "v4"); v2 and v3 compacted a day later. */
  async function compactedDocument(): Promise<string> {
    const { id } = await createDocument(t.app, { title: "Live", content: "v1" });
    for (let version = 1; version <= 3; version++) {
      const patch = { baseVersion: version, base: `v${version}`, seq: version, ...sender, ops: [{ op: "replace" as const, index: 0, count: 1, lines: [`v${version + 1}`] }] };
      expectStatus(await client.patch(id, patch), 200);
    }
    t.clock.advance(RETENTION_MS + 1000);
    // The head (v4) is snapshotted first; the sync versions below the snapshot lose their ops.
    expect(await t.services.compactor.runOnce()).toEqual({ versions: 2, receipts: 3, ran: true, snapshots: 1 });
    return id;
  }

  const synced = (version: number) => ({ version, changeType: "UPDATED", ...sender });

  it("answers the full content and the events after since instead of ops", async () => {
    const id = await compactedDocument();

    expectJson(await client.changes(id, 2), 200, { currentVersion: 4, content: "v4", events: [synced(3), synced(4)] });
    expectJson(await client.changes(id, 3), 200, { currentVersion: 4, content: "v4", events: [synced(4)] });
  });

  it("answers the full content when since is kept but a version after it was compacted", async () => {
    const id = await compactedDocument();

    expectJson(await client.changes(id, 1), 200, { currentVersion: 4, content: "v4", events: [synced(2), synced(3), synced(4)] });
  });

  it("does not answer with a diff computed before its versions passed the retention cutoff and were compacted", async () => {
    const { id } = await createDocument(t.app, { title: "Live", content: "v1" });
    for (let version = 1; version <= 3; version++) {
      const patch = { baseVersion: version, base: `v${version}`, seq: version, ...sender, ops: [{ op: "replace" as const, index: 0, count: 1, lines: [`v${version + 1}`] }] };
      expectStatus(await client.patch(id, patch), 200);
    }
    // A moment before the versions may be compacted, the diff is computed.
    t.clock.advance(RETENTION_MS - 1);
    const diff = { fromVersion: 2, currentVersion: 4, ops: [{ op: "replace", index: 0, count: 1, lines: ["v4"] }], events: [synced(3), synced(4)] };
    expectJson(await client.changes(id, 2), 200, diff);
    expectJson(await client.changes(id, 2), 200, diff);

    t.clock.advance(2);
    expect(await t.services.compactor.runOnce()).toMatchObject({ versions: 2, ran: true });

    expectJson(await client.changes(id, 2), 200, { currentVersion: 4, content: "v4", events: [synced(3), synced(4)] });
  });

  it("answers ops again from the kept head version once a new version follows it", async () => {
    const id = await compactedDocument();
    expectStatus(await client.patch(id, { baseVersion: 4, base: "v4", seq: 4, ...sender, ops: [{ op: "insert", index: 1, lines: ["v5"] }] }), 200);

    expectJson(await client.changes(id, 4), 200, { fromVersion: 4, currentVersion: 5, ops: [{ op: "insert", index: 1, lines: ["v5"] }], events: [synced(5)] });
  });
});

describe("GET /documents/{documentId}/changes of a deleted document", () => {
  it("answers 200 with the DELETED event, also with since=0", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a\nb" });
    expectStatus(await client.remove(id), 204);

    expectJson(await client.changes(id, 1), 200, { fromVersion: 1, currentVersion: 2, ops: [], events: [{ version: 2, changeType: "DELETED" }] });
    expectJson(await client.changes(id, 0), 200, {
      currentVersion: 2,
      content: "a\nb",
      events: [
        { version: 1, changeType: "CREATED" },
        { version: 2, changeType: "DELETED" },
      ],
    });
  });

  it("answers 204, not 404, when nothing happened since the deletion", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    expectStatus(await client.remove(id), 204);

    expectNoContent(await client.changes(id, 2, 0));
  });
});

describe("GET /documents/{documentId}/changes errors", () => {
  it("answers 404 at once for a UUID that never existed, even with a long wait, and leaves no waiter", async () => {
    const url = `${DOCUMENTS}/${UNKNOWN_ID}/changes`;

    expectProblem(await client.changes(UNKNOWN_ID, 0, 30), notFound(UNKNOWN_ID, url));
    expectProblem(await client.changes(UNKNOWN_ID, 3, 30), notFound(UNKNOWN_ID, url));
    expect(t.services.hub.stats()).toEqual(IDLE_HUB);
  });

  it("answers 400 for a malformed UUID", async () => {
    const url = `${DOCUMENTS}/not-a-uuid/changes`;

    expectProblem(await t.app.inject({ method: "GET", url: `${url}?since=0` }), invalid('params.documentId: must match format "uuid"', url));
  });

  it.each([
    ["a missing since", "", "querystring.since: must have required property 'since'"],
    ["a missing since beside a wait", "wait=1", "querystring.since: must have required property 'since'"],
    ["a negative since", "since=-1", "querystring.since: must be >= 0"],
    ["a fractional since", "since=1.5", "querystring.since: must be integer"],
    ["a since that is no number", "since=abc", "querystring.since: must be integer"],
    ["a negative wait", "since=1&wait=-1", "querystring.wait: must be >= 0"],
    ["a fractional wait", "since=1&wait=0.5", "querystring.wait: must be integer"],
    ["a wait beyond int32", "since=1&wait=2147483648", "querystring.wait: must be <= 2147483647"],
  ])("answers 400 for %s", async (_case, query, detail) => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const url = `${DOCUMENTS}/${id}/changes`;

    expectProblem(await t.app.inject({ method: "GET", url: `${url}?${query}` }), invalid(detail, url));
  });
});
