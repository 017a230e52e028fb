import { beforeEach, describe, expect, it } from "vitest";
import type { DocumentTransaction, Store } from "../../src/storage/store.js";
import { ID, OTHER, T0, appendVersions, head, version } from "../support/store-records.js";

/**
 * The write part of the storage contract: what a write commits, refuses and stages, how writers of one
 * document queue, and closing.
 * Called inside {@link runStoreContract}'s suite (store-contract.ts), so it runs against every adapter,
 * on the fresh, empty store that suite gives each test.
 */
export function runStoreWriteContract(current: () => Store): void {
  describe("writes", () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it("answers a ping while open, with its listener (where it has one) connected, and refuses it once closed", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
      const stats = store.stats();
      expect(["sqlite", "postgres"]).toContain(stats.kind);
      if (stats.kind === "postgres") expect(stats.listener).toEqual({ connected: true, reconnects: 0 });
      else expect(stats.listener).toBeUndefined();
      await store.close();
      await expect(store.ping()).rejects.toThrow(/closed/);
    });

    it("reads back exactly what a write committed, optional fields left out", async () => {
      const withSender = version(ID, 2, { clientId: "c-1", displayName: "Ada" });
      await store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 2));
        tx.appendVersion(version(ID, 1));
        tx.appendVersion(withSender);
      });
      expect(await store.reads(ID).document()).toEqual(head(ID, 2));
      expect(await store.reads(ID).version(1)).toEqual(version(ID, 1));
      expect(await store.reads(ID).version(2)).toEqual(withSender);
      expect(Object.keys((await store.reads(ID).version(1))!)).not.toContain("clientId");
    });

    it("returns the work's result after the commit", async () => {
      const result = await store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 1));
        tx.appendVersion(version(ID, 1));
        return "done";
      });
      expect(result).toBe("done");
      expect((await store.reads(ID).document())?.version).toBe(1);
    });

    it("writes nothing when the work throws", async () => {
      await expect(
        store.write(ID, async (tx) => {
          tx.putDocument(head(ID, 1));
          tx.appendVersion(version(ID, 1));
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      expect(await store.reads(ID).document()).toBeUndefined();
      expect(await store.reads(ID).version(1)).toBeUndefined();
    });

    it("refuses a version that is not the next one, and writes nothing of that work", async () => {
      await appendVersions(store, ID, 1, 2);
      await expect(
        store.write(ID, async (tx) => {
          tx.putDocument(head(ID, 4, { title: "Skipped" }));
          tx.appendVersion(version(ID, 4));
        }),
      ).rejects.toThrow();
      await expect(
        store.write(ID, async (tx) => {
          tx.appendVersion(version(ID, 2));
        }),
      ).rejects.toThrow();
      expect(await store.reads(ID).document()).toEqual(head(ID, 2));
      expect((await store.reads(ID).versions(0, 10)).map((v) => v.version)).toEqual([1, 2]);
    });

    it("refuses staging once the write is over, for another document, or after a refused version the work swallowed", async () => {
      let leaked: DocumentTransaction | undefined;
      await appendVersions(store, ID, 1, 1);
      await store.write(ID, async (tx) => {
        leaked = tx;
      });
      expect(() => leaked!.putSnapshot({ version: 1, text: "late" })).toThrow(`the write transaction of document ${ID} is over`);
      await expect(store.write(ID, async (tx) => tx.putDocument(head(OTHER, 1)))).rejects.toThrow(
        `putDocument for document ${OTHER} inside the write of document ${ID}`,
      );
      await expect(
        store.write(ID, async (tx) => {
          tx.appendVersion(version(ID, 2));
          try {
            tx.appendVersion(version(ID, 4));
          } catch {
            // swallowed: the write must fail all the same
          }
        }),
      ).rejects.toThrow(`appendVersion(4) on document ${ID}: the next version is 3`);
      await expect(store.write(ID, async (tx) => tx.appendVersion(version(ID, 3)))).rejects.toThrow(
        `appendVersion(3) on document ${ID}: the next version is 2`,
      );
      expect(await store.reads(ID).snapshot()).toBeUndefined();
      expect((await store.reads(ID).versions(0, 10)).map((v) => v.version)).toEqual([1]);
    });

    it("round-trips any well-formed text exactly, U+0000 and astral characters included", async () => {
      const text = "a\u0000b\r\nc\u2028d 😀 \u{10FFFF}\n\n\t end";
      const title = "T\u0000itle 😀";
      await store.write(ID, async (tx) => {
        tx.putDocument(head(ID, 1, { title }));
        tx.appendVersion(version(ID, 1, { title, text, ops: [{ index: 0, count: 1, lines: ["x\u0000y", "😀"] }], clientId: "c\u0000", displayName: "D\u0000 😀" }));
        tx.putSnapshot({ version: 1, text });
      });
      const stored = await store.reads(ID).version(1);
      expect(stored?.text).toBe(text);
      expect(stored?.title).toBe(title);
      expect(stored?.ops).toEqual([{ index: 0, count: 1, lines: ["x\u0000y", "😀"] }]);
      expect(stored?.clientId).toBe("c\u0000");
      expect(stored?.displayName).toBe("D\u0000 😀");
      expect((await store.reads(ID).document())?.title).toBe(title);
      expect(await store.reads(ID).snapshot()).toEqual({ version: 1, text });
      await store.write(OTHER, async (tx) => {
        tx.putDocument(head(OTHER, 1));
        tx.appendVersion(version(OTHER, 1, { text: "" }));
      });
      expect((await store.reads(OTHER).version(1))?.text).toBe("");
    });

    it("commits a write of thousands of versions and receipts whole, the last head and snapshot winning", async () => {
      await store.write(ID, async (tx) => {
        for (let n = 1; n <= 3000; n++) {
          tx.putDocument(head(ID, n));
          tx.appendVersion(version(ID, n));
          tx.putReceipt({ documentId: ID, clientId: "bulk", seq: n, requestHash: "h", version: n, opsSinceBase: [], createdAt: T0 });
          if (n % 1000 === 0) tx.putSnapshot({ version: n, text: `snapshot ${n}` });
        }
      });
      expect(await store.reads(ID).document()).toEqual(head(ID, 3000));
      expect((await store.reads(ID).versions(0, 5000)).map((v) => v.version)).toEqual(Array.from({ length: 3000 }, (_, n) => n + 1));
      expect(await store.reads(ID).snapshot()).toEqual({ version: 3000, text: "snapshot 3000" });
      expect(await store.reads(ID).receipt("bulk", 2999)).toEqual({ documentId: ID, clientId: "bulk", seq: 2999, requestHash: "h", version: 2999, opsSinceBase: [], createdAt: T0 });
    });

    it("lets the work read the committed state and its own earlier reads stay valid", async () => {
      await appendVersions(store, ID, 1, 3);
      const seen = await store.write(ID, async (tx) => {
        const document = await tx.document();
        const versions = await tx.versions(1, 3);
        const one = await tx.version(2);
        return { version: document?.version, versions: versions.map((v) => v.version), one: one?.version };
      });
      expect(seen).toEqual({ version: 3, versions: [2, 3], one: 2 });
    });

    it("serializes concurrent writers of one document: versions stay dense", async () => {
      const writers = 40;
      await Promise.all(
        Array.from({ length: writers }, () =>
          store.write(ID, async (tx) => {
            const current = (await tx.document())?.version ?? 0;
            await new Promise((resolve) => setImmediate(resolve));
            tx.putDocument(head(ID, current + 1));
            tx.appendVersion(version(ID, current + 1));
          }),
        ),
      );
      expect((await store.reads(ID).document())?.version).toBe(writers);
      expect((await store.reads(ID).versions(0, 1000)).map((v) => v.version)).toEqual(Array.from({ length: writers }, (_, i) => i + 1));
    });

    it("finishes in-flight writes before closing, and closing twice is harmless", async () => {
      let committed = false;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const pending = store
        .write(ID, async (tx) => {
          entered();
          await released;
          tx.putDocument(head(ID, 1));
          tx.appendVersion(version(ID, 1));
          return "written";
        })
        .then((value) => {
          committed = true;
          return value;
        });
      await inside;
      // close() must wait for the write, which is still inside its work function.
      const closing = store.close();
      release();
      await closing;
      expect(committed).toBe(true);
      expect(await pending).toBe("written");
      await store.close();
    });
  });
}
