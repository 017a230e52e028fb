import { beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/storage/store.js";
import { ID, T0, appendVersions, head, version } from "../support/store-records.js";

/**
 * The read part of the storage contract: versions and milestones, full texts, the document list and
 * the count of failed attempts on it.
 * Called inside {@link runStoreContract}'s suite (store-contract.ts), so it runs against every adapter,
 * on the fresh, empty store that suite gives each test.
 */
export function runStoreVersionContract(current: () => Store): void {
  describe("versions, texts and the document list", () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it("knows nothing of an id that never existed", async () => {
      expect(await store.reads(ID).document()).toBeUndefined();
      expect(await store.reads(ID).version(1)).toBeUndefined();
      expect(await store.reads(ID).versions(0, 10)).toEqual([]);
      expect(await store.reads(ID).milestones()).toEqual([]);
      expect(await store.reads(ID).snapshot()).toBeUndefined();
      expect(await store.reads(ID).fullTextAtOrBefore(5)).toBeUndefined();
      expect(await store.reads(ID).receipt("client", 1)).toBeUndefined();
      expect(await store.listDocuments()).toEqual([]);
    });

    it("reads a range of versions without their texts", async () => {
      await appendVersions(store, ID, 1, 2, (n) => ({ milestone: true, text: `text ${n}` }));
      const { text: _text, ...summary } = version(ID, 2, { milestone: true, text: "text 2" });
      expect(await store.reads(ID).versions(1, 2)).toEqual([summary]);
      expect(await store.write(ID, async (tx) => tx.versions(1, 2))).toEqual([summary]);
    });

    it("lists versions in (after, upTo] oldest first and milestones alone, after a version too, without their ops", async () => {
      await appendVersions(store, ID, 1, 6, (n) => ({ milestone: n % 3 === 0 || n === 1, text: n % 3 === 0 || n === 1 ? `text ${n}` : null }));
      expect((await store.reads(ID).versions(2, 5)).map((v) => v.version)).toEqual([3, 4, 5]);
      expect((await store.reads(ID).milestones()).map((v) => [v.version, v.text])).toEqual([
        [1, "text 1"],
        [3, "text 3"],
        [6, "text 6"],
      ]);
      expect((await store.reads(ID).milestones(3)).map((v) => [v.version, v.text])).toEqual([[6, "text 6"]]);
      const { ops: _ops, ...milestone } = version(ID, 6, { milestone: true, text: "text 6" });
      expect(await store.write(ID, async (tx) => tx.milestones(5))).toEqual([milestone]);
    });

    it("weighs versions before reading them: their heads with the UTF-8 size of their stored ops", async () => {
      await appendVersions(store, ID, 1, 3, (n) => ({ ops: [{ index: 0, count: 0, lines: ["é".repeat(n)] }] }));
      const expected = [2, 3].map((n) => {
        const { ops, text: _text, ...rest } = version(ID, n, { ops: [{ index: 0, count: 0, lines: ["é".repeat(n)] }] });
        return { ...rest, opsBytes: Buffer.byteLength(JSON.stringify(ops)) };
      });
      expect(await store.reads(ID).versionHeads(1, 3)).toEqual(expected);
      expect(await store.write(ID, async (tx) => tx.versionHeads(1, 3))).toEqual(expected);
      expect(await store.reads(ID).versionHeads(3, 9)).toEqual([]);
    });

    it("turns a version into a milestone that keeps its text", async () => {
      await appendVersions(store, ID, 1, 3);
      await store.write(ID, async (tx) => tx.markMilestone(2, "the text at 2"));
      expect(await store.reads(ID).version(2)).toEqual(version(ID, 2, { milestone: true, text: "the text at 2" }));
    });

    it("finds the newest full text at or before a version, snapshot or milestone", async () => {
      await appendVersions(store, ID, 1, 8, (n) => ({ milestone: n === 1 || n === 6, text: n === 1 || n === 6 ? `milestone ${n}` : null }));
      await store.write(ID, async (tx) => tx.putSnapshot({ version: 4, text: "snapshot 4" }));
      expect(await store.reads(ID).snapshot()).toEqual({ version: 4, text: "snapshot 4" });
      expect(await store.reads(ID).fullTextAtOrBefore(3)).toEqual({ version: 1, text: "milestone 1" });
      expect(await store.reads(ID).fullTextAtOrBefore(5)).toEqual({ version: 4, text: "snapshot 4" });
      expect(await store.reads(ID).fullTextAtOrBefore(8)).toEqual({ version: 6, text: "milestone 6" });
      await store.write(ID, async (tx) => tx.putSnapshot({ version: 7, text: "snapshot 7" }));
      expect(await store.reads(ID).fullTextAtOrBefore(8)).toEqual({ version: 7, text: "snapshot 7" });
      expect(await store.reads(ID).fullTextAtOrBefore(5)).toEqual({ version: 1, text: "milestone 1" });
    });

    it("applies a milestone mark on a version appended in the same write, and refuses a mark on a missing version", async () => {
      await appendVersions(store, ID, 1, 2);
      await store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 3));
        tx.appendVersion(version(ID, 3));
        tx.markMilestone(3, "the text at 3");
        tx.markMilestone(2, "the text at 2");
      });
      expect(await store.reads(ID).version(2)).toEqual(version(ID, 2, { milestone: true, text: "the text at 2" }));
      expect(await store.reads(ID).version(3)).toEqual(version(ID, 3, { milestone: true, text: "the text at 3" }));
      await expect(
        store.write(ID, async (tx) => {
          tx.putDocument(head(ID, 4));
          tx.appendVersion(version(ID, 4));
          tx.markMilestone(9, "no such version");
        }),
      ).rejects.toThrow();
      expect(await store.reads(ID).document()).toEqual(head(ID, 3));
      expect(await store.reads(ID).version(4)).toBeUndefined();
    });

    it("lists existing documents oldest first, deleted ones left out", async () => {
      const ids = ["00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"];
      await Promise.all(
        ids.map((id, i) =>
          store.write(id, async (tx) => {
            tx.putDocument(head(id, 1, { createdAt: T0 + (i === 2 ? 0 : i * 10), deleted: i === 1 }));
            tx.appendVersion(version(id, 1));
          }),
        ),
      );
      expect((await store.listDocuments()).map((d) => d.id)).toEqual([ids[2], ids[0]]);
    });

    it("counts list failures, locks at the limit, ignores failures while locked and resets on success", async () => {
      expect(await store.getListLock()).toEqual({ failures: 0, lockedUntil: 0 });
      expect(await store.recordListFailure(T0, 3, 60_000)).toEqual({ failures: 1, lockedUntil: 0, counted: true });
      expect(await store.recordListFailure(T0, 3, 60_000)).toEqual({ failures: 2, lockedUntil: 0, counted: true });
      expect(await store.recordListFailure(T0 + 1, 3, 60_000)).toEqual({ failures: 0, lockedUntil: T0 + 60_001, counted: true });
      expect(await store.recordListFailure(T0 + 2, 3, 60_000)).toEqual({ failures: 0, lockedUntil: T0 + 60_001, counted: false });
      expect(await store.recordListFailure(T0 + 60_001, 3, 60_000)).toEqual({ failures: 1, lockedUntil: T0 + 60_001, counted: true });
      await store.resetListFailures();
      expect(await store.getListLock()).toEqual({ failures: 0, lockedUntil: T0 + 60_001 });
    });

    it("lifts a lock on success only when the success names that lock's end", async () => {
      await store.recordListFailure(T0, 2, 60_000);
      expect(await store.recordListFailure(T0, 2, 60_000)).toEqual({ failures: 0, lockedUntil: T0 + 60_000, counted: true });
      await store.resetListFailures(T0 + 59_999);
      expect(await store.getListLock()).toEqual({ failures: 0, lockedUntil: T0 + 60_000 });
      await store.resetListFailures(T0 + 60_000);
      expect(await store.getListLock()).toEqual({ failures: 0, lockedUntil: 0 });
    });
  });
}
