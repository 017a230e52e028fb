import { describe, expect, it } from "vitest";
import { FEED_COMPOSE_BYTES } from "../../src/service/changes-since.js";
import { REBASE_BYTES } from "../../src/service/patch-content.js";
import { createServices } from "../../src/service/services.js";
import { appPerTest } from "../support/app-per-test.js";
import { T0, at, checksum, createDocument, DOCUMENTS, expectJson, expectProblem } from "../support/http-expect.js";
import { insert, patchContent, replace } from "../support/content-patch.js";

// The bounds on costly work (docs/api.md, "Bounds"): a feed answer that would compose more than
// FEED_COMPOSE_BYTES of ops is the full text instead; a stale patch over more than REBASE_BYTES of
// ops is 422 rebase-too-large before anything is composed; the history is written once per
// milestone and once per version of its newest state.

const t = appPerTest();

/** Lines whose ops (as JSON) weigh more than `bytes`. */
const heavyText = (bytes: number) => Array.from({ length: Math.ceil(bytes / 40) + 10 }, (_, index) => `line ${index} of a text that weighs a lot`.padEnd(48, ".")).join("\n");

describe("the feed's bound", () => {
  it("answers the full text instead of composing more than the bound, from memory and from the store", async () => {
    const { id } = await createDocument(t.app, { title: "Heavy", content: "a" });
    const heavy = heavyText(FEED_COMPOSE_BYTES);
    expect((await t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title: "Heavy", content: heavy } })).statusCode).toBe(200);
    const events = [{ version: 2, changeType: "UPDATED" }];
    expectJson(await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/changes?since=1&wait=0` }), 200, { currentVersion: 2, content: heavy, events });

    // Another set of use cases on the store, whose memory holds nothing: the versions are weighed before their ops are read.
    const other = createServices({ config: t.config, store: t.store, clock: t.clock });
    try {
      expect(await other.feed.changes(id, 1, 0)).toEqual({ currentVersion: 2, content: heavy, events });
    } finally {
      await other.close();
    }
  });

  it("still answers a diff for versions under the bound", async () => {
    const { id } = await createDocument(t.app, { title: "Light", content: "a" });
    expect((await patchContent(t.app, id, { baseVersion: 1, checksum: checksum("a"), clientId: "c", seq: 1, ops: [insert(1, "b")] })).statusCode).toBe(200);
    expectJson(await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/changes?since=1&wait=0` }), 200, {
      fromVersion: 1,
      currentVersion: 2,
      ops: [{ op: "insert", index: 1, lines: ["b"] }],
      events: [{ version: 2, changeType: "UPDATED", clientId: "c" }],
    });
  });
});

describe("the rebase's bound", () => {
  it("refuses a stale patch over more than the bound with 422 rebase-too-large, writing nothing, and rebases one under it", async () => {
    const { id } = await createDocument(t.app, { title: "Heavy", content: "a\nb" });
    const heavy = `${heavyText(REBASE_BYTES)}\na\nb`;
    expect((await t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title: "Heavy", content: heavy } })).statusCode).toBe(200);
    const stale = await patchContent(t.app, id, { baseVersion: 1, checksum: checksum("a\nb"), clientId: "c", seq: 1, ops: [replace(1, 1, "B")] });
    expectProblem(stale, {
      status: 422,
      code: "rebase-too-large",
      title: "Too much to rebase over",
      detail: `the versions since base 1 change more than ${REBASE_BYTES} bytes of ops; reload the document and send the change on its current version`,
      instance: `${DOCUMENTS}/${id}/content`,
    });
    expect((await t.store.reads(id).document())?.version).toBe(2);

    const { id: light } = await createDocument(t.app, { title: "Light", content: "a\nb" });
    expect((await patchContent(t.app, light, { baseVersion: 1, checksum: checksum("a\nb"), clientId: "d", seq: 1, ops: [insert(0, "z")] })).statusCode).toBe(200);
    const shifted = await patchContent(t.app, light, { baseVersion: 1, checksum: checksum("a\nb"), clientId: "e", seq: 1, ops: [replace(1, 1, "B")] });
    expect(shifted.statusCode).toBe(200);
  });
});

describe("the history's answers", () => {
  it("are the same bytes for one version, grow by the newest state and by new milestones, and are the same through a read link", async () => {
    const { id } = await createDocument(t.app, { title: "Plan", content: "a" });
    const history = () => t.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/history` });
    const created = { documentId: id, version: 1, title: "Plan", content: "a", changeType: "CREATED", timestamp: T0 };
    const first = await history();
    expectJson(first, 200, [created]);
    expect((await history()).body).toBe(first.body);

    t.clock.advance(1000);
    expect((await patchContent(t.app, id, { baseVersion: 1, checksum: checksum("a"), clientId: "c", seq: 1, displayName: "Ada", ops: [insert(1, "b")] })).statusCode).toBe(200);
    const second = { documentId: id, version: 2, title: "Plan", content: "a\nb", changeType: "UPDATED", timestamp: at(1000), clientId: "c", displayName: "Ada" };
    expectJson(await history(), 200, [created, second]);

    t.clock.advance(1000);
    expect((await t.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${id}/title`, payload: { title: "Plan B", expectedVersion: 2 } })).statusCode).toBe(200);
    const renamed = { documentId: id, version: 3, title: "Plan B", content: "a\nb", changeType: "RENAMED", timestamp: at(2000) };
    expectJson(await history(), 200, [created, renamed]);

    const { readId } = (await t.app.inject({ method: "POST", url: `${DOCUMENTS}/${id}/read-link` })).json<{ readId: string }>();
    const throughLink = await t.app.inject({ method: "GET", url: `/api/v1/read/${readId}/history` });
    expectJson(throughLink, 200, [created, renamed].map((entry) => ({ ...entry, documentId: readId })));
    // Requests at once for one version share one answer.
    const together = await Promise.all(Array.from({ length: 5 }, () => history()));
    expect(new Set(together.map((answer) => answer.body)).size).toBe(1);
  });
});
