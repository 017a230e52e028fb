/**
 * A whole-text change keeps what it replaces (docs/interface.md#whole-text-changes): before a PUT or
 * a rollback is written, the current version becomes a milestone, as after a write pause. Runs on
 * SQLite and, in the "postgres" project, on PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import { appPerTest } from "../support/app-per-test.js";
import { DOCUMENTS, T0, at, createDocument, expectJson, expectProblem, type DocumentJson } from "../support/http-expect.js";
import { checksumOf, patchContent, readHistory, replace } from "../support/content-patch.js";

const RETENTION_MS = 86_400_000;

const t = appPerTest({ config: (config) => (config.history.retentionSeconds = RETENTION_MS / 1000) });

const put = (id: string, body: { title: string; content: string; expectedVersion?: number }) => t.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: body });
const rollback = (id: string, version: number) => t.app.inject({ method: "POST", url: `${DOCUMENTS}/${id}/restore`, payload: { version } });

/** "Notes" created as "a" at T0, then live edits a second apart: sync versions 2 ("b") and 3 ("c"). */
async function liveDocument(): Promise<DocumentJson> {
  const created = await createDocument(t.app, { title: "Notes", content: "a" });
  for (const [seq, before, after] of [[1, "a", "b"], [2, "b", "c"]] as const) {
    t.clock.advance(1000);
    const body = { baseVersion: seq, checksum: checksumOf(before), clientId: "ann", seq, displayName: "Ann", ops: [replace(0, 1, after)] };
    expect((await patchContent(t.app, created.id, body)).statusCode).toBe(200);
  }
  return created;
}

const ann = { clientId: "ann", displayName: "Ann" };

function entry(id: string, version: number, changeType: string, content: string, timestamp: string, sender = {}) {
  return { documentId: id, version, title: "Notes", content, changeType, timestamp, ...sender };
}

describe("a whole-text change keeps what it replaces", () => {
  it("makes the live state before a PUT a milestone: the history lists it, with its author", async () => {
    const { id } = await liveDocument();
    t.clock.advance(1000);

    expectJson(await put(id, { title: "Notes", content: "typed over" }), 200, { id, title: "Notes", content: "typed over", version: 4, createdAt: T0, updatedAt: at(3000) });

    expectJson(await t.app.inject({ method: "GET", url: `${DOCUMENTS}/${id}/history` }), 200, [
      entry(id, 1, "CREATED", "a", T0),
      entry(id, 3, "UPDATED", "c", at(2000), ann),
      entry(id, 4, "UPDATED", "typed over", at(3000)),
    ]);
    expect([(await t.store.reads(id).version(2))?.milestone, (await t.store.reads(id).version(3))?.milestone]).toEqual([false, true]);
  });

  it("makes the live state before a rollback a milestone, so that the rollback can be rolled back", async () => {
    const { id } = await liveDocument();
    t.clock.advance(1000);
    expect((await rollback(id, 1)).json<{ content: string; version: number }>()).toMatchObject({ content: "a", version: 4 });
    t.clock.advance(1000);

    expectJson(await rollback(id, 3), 200, { id, title: "Notes", content: "c", version: 5, createdAt: T0, updatedAt: at(4000) });

    expect(await readHistory(t.app, id)).toEqual([
      entry(id, 1, "CREATED", "a", T0),
      entry(id, 3, "UPDATED", "c", at(2000), ann),
      entry(id, 4, "ROLLED_BACK", "a", at(3000)),
      entry(id, 5, "ROLLED_BACK", "c", at(4000)),
    ]);
  });

  it("keeps the replaced state through compaction: its text stays and a rollback to it works", async () => {
    const { id } = await liveDocument();
    expect((await put(id, { title: "Notes", content: "typed over" })).statusCode).toBe(200);
    t.clock.advance(RETENTION_MS + 1);
    await t.services.compactor.runOnce();

    expect([(await t.store.reads(id).version(2))?.text, (await t.store.reads(id).version(3))?.text]).toEqual([null, "c"]);
    expect((await rollback(id, 3)).json<{ content: string }>().content).toEqual("c");
    expect((await rollback(id, 2)).statusCode).toBe(404);
  });

  it("marks nothing more when the state it replaces is a milestone already", async () => {
    const created = await createDocument(t.app, { title: "Notes", content: "a" });
    t.clock.advance(1000);
    await put(created.id, { title: "Notes", content: "b" });
    t.clock.advance(1000);
    await put(created.id, { title: "Notes", content: "c" });

    expect((await readHistory(t.app, created.id)).map((item) => [item.version, item.changeType, item.content])).toEqual([
      [1, "CREATED", "a"],
      [2, "UPDATED", "b"],
      [3, "UPDATED", "c"],
    ]);
  });

  it("marks nothing when the PUT or the rollback is refused", async () => {
    const { id } = await liveDocument();

    expectProblem(await put(id, { title: "Notes", content: "late", expectedVersion: 2 }), {
      status: 409,
      code: "version-conflict",
      title: "Version conflict",
      detail: "expectedVersion 2 is not the current version 3",
      instance: `${DOCUMENTS}/${id}`,
    });
    expect((await rollback(id, 9)).statusCode).toBe(404);

    expect((await readHistory(t.app, id)).map((item) => item.version)).toEqual([1, 3]);
    expect((await t.store.reads(id).version(3))?.milestone).toBe(false);
  });
});
