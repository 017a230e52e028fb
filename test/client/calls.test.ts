import bcrypt from "bcryptjs";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type ContentPatchRequest } from "../../src/client/index.js";
import { checksum } from "../support/http-expect.js";
import { caught, serveTestApp, type ServedApp } from "../support/client-harness.js";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";
import { seedWorld } from "../support/tracker-harness.js";

// The typed calls of createClient against the real service on loopback: each endpoint once, its
// answer as data (the 409 ContentConflict and the feed's 204 included) and every other error as a
// FolioError carrying the problem.

let served: ServedApp | undefined;
let fake: FakeTaiga | undefined;
afterEach(async () => {
  await served?.close();
  await fake?.close();
  served = undefined;
  fake = undefined;
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("createClient: documents", () => {
  it("adds /api/v1 to the service's root, with or without a trailing slash", async () => {
    served = await serveTestApp();
    for (const baseUrl of [served.baseUrl, `${served.baseUrl}/`]) {
      expect(await createClient({ baseUrl }).info()).toEqual({ name: "folio", version: "0.1.0", tracker: false });
    }
  });

  it("creates, reads, replaces, renames, lists the history of, deletes and restores a document", async () => {
    served = await serveTestApp();
    const { client } = served;
    const created = await client.createDocument({ title: "Notes", content: "a\nb" });
    const anyId = expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown as string;
    const anyTime = expect.stringMatching(ISO) as unknown as string;
    expect(created).toEqual({ id: anyId, title: "Notes", content: "a\nb", version: 1, createdAt: anyTime, updatedAt: anyTime });
    expect(await client.getDocument(created.id)).toEqual(created);

    const replaced = await client.replaceDocument(created.id, { title: "Notes", content: "a\nb\nc", expectedVersion: 1 });
    expect({ version: replaced.version, content: replaced.content }).toEqual({ version: 2, content: "a\nb\nc" });
    const renamed = await client.renameDocument(created.id, { title: "Plans", expectedVersion: 2 });
    expect({ version: renamed.version, title: renamed.title }).toEqual({ version: 3, title: "Plans" });
    const history = await client.history(created.id);
    expect(history.map((entry) => [entry.version, entry.changeType, entry.title])).toEqual([
      [1, "CREATED", "Notes"],
      [2, "UPDATED", "Notes"],
      [3, "RENAMED", "Plans"],
    ]);

    await client.deleteDocument(created.id);
    const gone = await caught(client.getDocument(created.id));
    expect({ status: gone.status, code: gone.code, detail: gone.problem?.detail }).toEqual({ status: 404, code: "not-found", detail: `no document ${created.id}` });
    const restored = await client.restore(created.id);
    expect({ version: restored.version, content: restored.content, title: restored.title }).toEqual({ version: 5, content: "a\nb\nc", title: "Plans" });
    const rolledBack = await client.restore(created.id, 1);
    expect({ version: rolledBack.version, content: rolledBack.content }).toEqual({ version: 6, content: "a\nb" });
  });

  it("throws a FolioError with the problem for a 4xx, e.g. a stale rename", async () => {
    served = await serveTestApp();
    const created = await served.client.createDocument({ title: "Notes", content: "" });
    const error = await caught(served.client.renameDocument(created.id, { title: "X", expectedVersion: 7 }));
    expect(error.status).toBe(409);
    expect(error.problem).toEqual({
      type: "urn:folio:problem:version-conflict",
      title: "Version conflict",
      status: 409,
      detail: expect.any(String) as string,
      instance: `/api/v1/documents/${created.id}/title`,
    });
  });

  it("lists the documents with the master password, and throws 401 with a wrong one", async () => {
    const hash = bcrypt.hashSync("open sesame", 4);
    served = await serveTestApp({ config: (config) => (config.masterPassword.hash = hash) });
    const created = await served.client.createDocument({ title: "Notes", content: "x" });
    expect(await served.client.listDocuments("open sesame")).toEqual([created]);
    expect((await caught(served.client.listDocuments("wrong"))).status).toBe(401);
  });
});

describe("createClient: live editing calls", () => {
  it("answers a patch 200 with the result, and a true overlap 409 as data", async () => {
    served = await serveTestApp();
    const { client } = served;
    const { id } = await client.createDocument({ title: "T", content: "a\nb\nc" });
    const patch = (clientId: string, ops: ContentPatchRequest["ops"]): ContentPatchRequest => ({ baseVersion: 1, checksum: checksum("a\nb\nc"), clientId, seq: 1, ops });

    expect(await client.patchContent(id, patch("one", [{ op: "replace", index: 1, count: 1, lines: ["B"] }]))).toEqual({
      status: 200,
      result: { version: 2, opsSinceBase: [], checksum: checksum("a\nB\nc") },
    });
    expect(await client.patchContent(id, patch("two", [{ op: "replace", index: 1, count: 1, lines: ["X"] }]))).toEqual({
      status: 409,
      conflict: { currentVersion: 2, opsSinceBase: [{ op: "replace", index: 1, count: 1, lines: ["B"] }] },
    });
    const reused = await caught(client.patchContent(id, patch("one", [{ op: "delete", index: 0, count: 1 }])));
    expect({ status: reused.status, code: reused.code }).toEqual({ status: 409, code: "seq-reused" });
    const unprocessable = await caught(client.patchContent(id, { ...patch("three", []), milestone: true, checksum: checksum("nope") }));
    expect({ status: unprocessable.status, code: unprocessable.code }).toEqual({ status: 422, code: "checksum-mismatch" });
  });

  it("answers the feed with the changes since a version, and null for its 204", async () => {
    served = await serveTestApp();
    const { client } = served;
    const { id } = await client.createDocument({ title: "T", content: "a" });
    await client.replaceDocument(id, { title: "T", content: "a\nb" });
    expect(await client.changes(id, { since: 1, wait: 0 })).toEqual({
      fromVersion: 1,
      currentVersion: 2,
      ops: [{ op: "insert", index: 1, lines: ["b"] }],
      events: [{ version: 2, changeType: "UPDATED" }],
    });
    expect(await client.changes(id, { since: 2, wait: 0 })).toBeNull();
  });
});

describe("createClient: the tracker proxy", () => {
  it("answers 503 as a FolioError when no tracker is configured", async () => {
    served = await serveTestApp();
    const error = await caught(served.client.tracker.login({ username: "a", password: "b" }));
    expect({ status: error.status, code: error.code }).toEqual({ status: 503, code: "tracker-not-configured" });
  });

  it("logs in, lists projects, creates, reads and moves tickets and lists statuses", async () => {
    fake = await FakeTaiga.start();
    const world = seedWorld(fake);
    const apiUrl = fake.apiUrl;
    served = await serveTestApp({ config: (config) => (config.tracker.apiUrl = apiUrl) });
    const { tracker } = served.client;

    const session = await tracker.login({ username: "alice", password: "s3cret-Pa55word" });
    expect(session).toMatchObject({ userId: world.alice.id, username: "alice", fullName: "Alice Liddell" });
    const token = session.authToken;
    expect((await tracker.projects(token, world.alice.id)).map((project) => project.slug)).toContain("alice-folio");
    const story = await tracker.createStory(token, { project: world.project.id, subject: "Export" });
    expect(story).toEqual({ id: expect.any(Number) as number, ref: expect.any(Number) as number, subject: "Export" });
    const task = await tracker.createTask(token, { project: world.project.id, subject: "CSV", userStory: story.id });
    expect(task.subject).toBe("CSV");
    const read = await tracker.story(token, "alice-folio", story.ref);
    expect(read).toMatchObject({ id: story.id, ref: story.ref, subject: "Export" });
    expect((await tracker.task(token, "alice-folio", task.ref)).subject).toBe("CSV");
    const storyStatuses = await tracker.storyStatuses(token, "alice-folio");
    const taskStatuses = await tracker.taskStatuses(token, "alice-folio");
    expect(storyStatuses.length).toBeGreaterThan(1);
    expect(taskStatuses.length).toBeGreaterThan(1);
    const moved = await tracker.moveStory(token, "alice-folio", story.ref, { status: storyStatuses[1]!.id, version: read.version! });
    expect(moved.status).toBe(storyStatuses[1]!.name);
    const taskRead = await tracker.task(token, "alice-folio", task.ref);
    const movedTask = await tracker.moveTask(token, "alice-folio", task.ref, { status: taskStatuses[1]!.id, version: taskRead.version! });
    expect(movedTask.status).toBe(taskStatuses[1]!.name);
    expect((await caught(tracker.projects("", 1))).status).toBe(401);
  });
});
