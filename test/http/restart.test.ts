import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/sqlite-store.js";
import type { VersionSummary } from "../../src/storage/store.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { ManualClock } from "../support/manual-clock.js";
import { DOCUMENTS, T0_MS, basicAuth, checksum, createDocument, type DocumentJson } from "../support/http-expect.js";

const PASSWORD = "restart";
const HASH = bcrypt.hashSync(PASSWORD, 4);

let dir: string;
let open: TestApp | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "folio-restart-"));
});

afterEach(async () => {
  await open?.close();
  open = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The app on a SQLite file in the temp dir; the store is closed with the app. */
async function startApp(clock: ManualClock): Promise<TestApp> {
  open = await buildTestApp({
    store: SqliteStore.open(join(dir, "service.db")),
    clock,
    config: (config) => (config.masterPassword.hash = HASH),
  });
  return open;
}

/** Everything a client and the store can see of `ids`: documents, histories, the list and every version record. */
async function observe(t: TestApp, ids: string[]) {
  const get = async (url: string) => {
    const response = await t.app.inject({ method: "GET", url, headers: { authorization: basicAuth("admin", PASSWORD) } });
    return { status: response.statusCode, body: response.json<unknown>() };
  };
  const documents: Record<string, unknown> = {};
  const histories: Record<string, unknown> = {};
  const versions: Record<string, VersionSummary[]> = {};
  for (const id of ids) {
    documents[id] = await get(`${DOCUMENTS}/${id}`);
    histories[id] = await get(`${DOCUMENTS}/${id}/history`);
    const head = await t.store.reads(id).document();
    versions[id] = await t.store.reads(id).versions(0, head?.version ?? 0);
  }
  return { list: await get(DOCUMENTS), documents, histories, versions };
}

describe("a restart on the same SQLite file", () => {
  it("keeps every document, version and history entry", async () => {
    const clock = new ManualClock();
    const first = await startApp(clock);
    const put = (id: string, title: string, content: string) => first.app.inject({ method: "PUT", url: `${DOCUMENTS}/${id}`, payload: { title, content } });

    const plan = await createDocument(first.app, { title: "Plan", content: "one\ntwo" });
    clock.advance(1000);
    const notes = await createDocument(first.app, { title: "Notes", content: "" });
    clock.advance(1000);
    const scratch = await createDocument(first.app, { title: "Scratch", content: "tmp" });
    clock.advance(1000);
    const gone = await createDocument(first.app, { title: "Gone", content: "bye" });
    clock.advance(1000);

    expect((await put(plan.id, "Plan", "one\ntwo\nthree")).statusCode).toBe(200);
    expect((await first.app.inject({ method: "PATCH", url: `${DOCUMENTS}/${notes.id}/title`, payload: { title: "Meeting notes", expectedVersion: 1 } })).statusCode).toBe(200);
    clock.advance(1000);
    expect((await first.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${scratch.id}` })).statusCode).toBe(204);
    expect((await first.app.inject({ method: "DELETE", url: `${DOCUMENTS}/${gone.id}` })).statusCode).toBe(204);
    clock.advance(1000);
    expect((await first.app.inject({ method: "POST", url: `${DOCUMENTS}/${scratch.id}/restore` })).statusCode).toBe(200);
    // Sync versions: the head of Plan is rebuilt from ops after the restart, not read whole.
    for (const [seq, line] of ["a", "b", "c"].entries()) {
      const base = seq === 0 ? "one\ntwo\nthree" : `${["a", "b", "c"][seq - 1]}\ntwo\nthree`;
      const response = await first.app.inject({
        method: "PATCH",
        url: `${DOCUMENTS}/${plan.id}/content`,
        payload: { baseVersion: 2 + seq, checksum: checksum(base), clientId: "client-1", seq, ops: [{ op: "replace", index: 0, count: 1, lines: [line] }] },
      });
      expect(response.statusCode).toBe(200);
    }

    const ids = [plan.id, notes.id, scratch.id, gone.id];
    const before = await observe(first, ids);
    await first.close();
    open = undefined;

    clock.set(T0_MS + 3_600_000);
    const second = await startApp(clock);
    const after = await observe(second, ids);

    expect(after).toEqual(before);
    expect(before.list).toEqual({
      status: 200,
      body: [
        { ...plan, content: "c\ntwo\nthree", version: 5, updatedAt: "2026-01-05T10:00:06.000Z" },
        { ...notes, title: "Meeting notes", version: 2, updatedAt: "2026-01-05T10:00:04.000Z" },
        { ...scratch, version: 3, updatedAt: "2026-01-05T10:00:06.000Z" },
      ] satisfies DocumentJson[],
    });
    expect((before.documents[gone.id] as { status: number }).status).toBe(404);
    expect((before.histories[gone.id] as { body: { changeType: string }[] }).body.map((entry) => entry.changeType)).toEqual(["CREATED", "DELETED"]);
  });

  it("continues the version numbers after the restart", async () => {
    const clock = new ManualClock();
    const first = await startApp(clock);
    const created = await createDocument(first.app, { title: "Counter", content: "1" });
    await first.app.inject({ method: "PUT", url: `${DOCUMENTS}/${created.id}`, payload: { title: "Counter", content: "2" } });
    await first.close();
    open = undefined;

    const second = await startApp(clock);
    const response = await second.app.inject({ method: "PUT", url: `${DOCUMENTS}/${created.id}`, payload: { title: "Counter", content: "3" } });

    expect(response.json<DocumentJson>()).toEqual({ ...created, content: "3", version: 3 });
  });
});
