import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/storage/store.js";

const DOC = "5b0f8f3e-8f4a-4a57-9d55-0c8d3e1f2a01";
const OTHER = "8c1d2e3f-4a5b-4c6d-8e7f-901234567890";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");

const CHECKSUM = `sha256:${"0".repeat(64)}`;
const HEAD = { title: "Plan", createdAt: T0, updatedAt: T0, checksum: CHECKSUM };
const VERSION = { milestone: true, createdAt: T0, title: "Plan", ops: [], checksum: CHECKSUM, text: "" };

/** Commits version 1 of `id` (and, when `deleted`, its DELETED version 2) straight through the store. */
async function storeDocument(store: Store, id: string, deleted = false): Promise<void> {
  await store.write(id, async (tx) => {
    tx.putDocument({ ...HEAD, id, version: 1, deleted: false });
    tx.appendVersion({ ...VERSION, documentId: id, version: 1, changeType: "CREATED" });
  });
  if (deleted) await deleteDocument(store, id);
}

/** Commits the DELETED version 2 of a document stored by {@link storeDocument}. */
async function deleteDocument(store: Store, id: string): Promise<void> {
  await store.write(id, async (tx) => {
    tx.putDocument({ ...HEAD, id, version: 2, deleted: true });
    tx.appendVersion({ ...VERSION, documentId: id, version: 2, changeType: "DELETED" });
  });
}

/**
 * The read-link part of the storage contract (src/storage/read-links.ts): called inside
 * {@link runStoreContract}'s suite, so it runs against every adapter, on the fresh, empty store that
 * suite gives each test.
 */
export function runReadLinkContract(current: () => Store): void {
  describe("read links", () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it("knows no link of a document that has none, nor of an id no link has", async () => {
      await storeDocument(store, DOC);

      expect(await store.readLinks.readIdOf(DOC)).toBeUndefined();
      expect(await store.readLinks.documentOf(randomUUID())).toBeUndefined();
      expect(await store.readLinks.documentOf(DOC)).toBeUndefined();
      expect(await store.readLinks.remove(DOC)).toBe(false);
    });

    it("gives an existing document a link, found by either id, and a new link replaces the old one", async () => {
      await storeDocument(store, DOC);
      const first = randomUUID();
      const second = randomUUID();

      expect(await store.readLinks.replace(DOC, first, T0)).toBe(true);
      expect({ readId: await store.readLinks.readIdOf(DOC), document: await store.readLinks.documentOf(first) }).toEqual({ readId: first, document: DOC });
      expect(await store.readLinks.replace(DOC, second, T0 + 1)).toBe(true);

      expect({
        readId: await store.readLinks.readIdOf(DOC),
        byFirst: await store.readLinks.documentOf(first),
        bySecond: await store.readLinks.documentOf(second),
      }).toEqual({ readId: second, byFirst: undefined, bySecond: DOC });
    });

    it("refuses a link for a document that never existed or is deleted, and writes nothing", async () => {
      await storeDocument(store, OTHER, true);
      const refused = [randomUUID(), randomUUID()];

      expect(await store.readLinks.replace(DOC, refused[0]!, T0)).toBe(false);
      expect(await store.readLinks.replace(OTHER, refused[1]!, T0)).toBe(false);

      expect(await store.readLinks.readIdOf(DOC)).toBeUndefined();
      expect(await store.readLinks.readIdOf(OTHER)).toBeUndefined();
      expect(await Promise.all(refused.map((readId) => store.readLinks.documentOf(readId)))).toEqual([undefined, undefined]);
    });

    it("keeps a link through the document's deletion, and removes it then too", async () => {
      await storeDocument(store, DOC);
      const readId = randomUUID();
      await store.readLinks.replace(DOC, readId, T0);
      await deleteDocument(store, DOC);

      expect(await store.readLinks.documentOf(readId)).toBe(DOC);
      expect(await store.readLinks.remove(DOC)).toBe(true);
      expect({ readId: await store.readLinks.readIdOf(DOC), document: await store.readLinks.documentOf(readId) }).toEqual({ readId: undefined, document: undefined });
    });

    it("removes a link once: the second removal finds none", async () => {
      await storeDocument(store, DOC);
      const readId = randomUUID();
      await store.readLinks.replace(DOC, readId, T0);

      expect(await store.readLinks.remove(DOC)).toBe(true);
      expect(await store.readLinks.remove(DOC)).toBe(false);
      expect(await store.readLinks.documentOf(readId)).toBeUndefined();
    });

    it("keeps the links of two documents apart, and never lets two documents share one read id", async () => {
      await storeDocument(store, DOC);
      await storeDocument(store, OTHER);
      const mine = randomUUID();
      const theirs = randomUUID();
      await store.readLinks.replace(DOC, mine, T0);
      await store.readLinks.replace(OTHER, theirs, T0);

      await expect(store.readLinks.replace(OTHER, mine, T0)).rejects.toThrow();
      await store.readLinks.remove(DOC);

      expect({ mine: await store.readLinks.documentOf(mine), theirs: await store.readLinks.documentOf(theirs), other: await store.readLinks.readIdOf(OTHER) }).toEqual({
        mine: undefined,
        theirs: OTHER,
        other: theirs,
      });
    });

    it("finds ids whatever the case of their hex digits, and answers nothing for strings that are no UUID", async () => {
      await storeDocument(store, DOC);
      const readId = randomUUID();
      await store.readLinks.replace(DOC.toUpperCase(), readId.toUpperCase(), T0);

      expect({ readId: await store.readLinks.readIdOf(DOC.toUpperCase()), document: await store.readLinks.documentOf(readId.toUpperCase()) }).toEqual({ readId, document: DOC });
      expect(await store.readLinks.documentOf("not-a-uuid")).toBeUndefined();
      expect(await store.readLinks.readIdOf("")).toBeUndefined();
      expect(await store.readLinks.remove("not-a-uuid")).toBe(false);
    });

    it("leaves exactly one link when many replace the link of one document at once", async () => {
      await storeDocument(store, DOC);
      const readIds: string[] = Array.from({ length: 12 }, () => randomUUID());

      expect(await Promise.all(readIds.map((readId, index) => store.readLinks.replace(DOC, readId, T0 + index)))).toEqual(readIds.map(() => true));

      const found = await Promise.all(readIds.map((readId) => store.readLinks.documentOf(readId)));
      const kept = await store.readLinks.readIdOf(DOC);
      expect(found.filter((document) => document === DOC)).toHaveLength(1);
      expect(found[readIds.indexOf(kept!)]).toBe(DOC);
    });
  });
}
