import { expect, it } from "vitest";
import {
  changeDocumentKey,
  createEncryptedDocument,
  generateDocumentKey,
  isEncryptedDocument,
  NotEncryptedError,
  openDocument,
  openReadOnly,
  TitleTooLongError,
  UNREADABLE_LINE,
  UNREADABLE_TITLE,
  withDocumentKey,
  WrongKeyError,
  type PendingStore,
  type StoredPending,
} from "../../src/client/index.js";
import { servedAppPerTest } from "../support/app-per-test.js";
import { converged, FAST, openLive } from "../support/client-harness.js";
import { until } from "../support/wait-until.js";

const s = servedAppPerTest();

/** The document as the service holds it, read with plain HTTP. */
async function stored(id: string): Promise<{ title: string; content: string; version: number }> {
  const answer = await fetch(`${s.baseUrl}/api/v1/documents/${id}`);
  expect(answer.status).toBe(200);
  return (await answer.json()) as { title: string; content: string; version: number };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("did not reject");
    },
    (error: unknown) => error as Error,
  );
}

it("keys are 256-bit base64url text; a created document is ciphertext, one line per line, its title 254 characters", async () => {
  const key = generateDocumentKey();
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(generateDocumentKey()).not.toBe(key);
  const created = await createEncryptedDocument(s.client, { title: "Secret plan", content: "alpha\n  beta\n\nalpha" }, key);
  expect({ title: created.title, content: created.content, version: created.version }).toEqual({ title: "Secret plan", content: "alpha\n  beta\n\nalpha", version: 1 });
  const wire = await stored(created.id);
  expect(isEncryptedDocument(wire)).toBe(true);
  expect(wire.title).toHaveLength(254);
  expect(wire.title.startsWith("e1.")).toBe(true);
  const lines = wire.content.split("\n");
  expect(lines).toHaveLength(4);
  // Equal plain lines are not equal ciphertext; nothing of the text shows.
  expect(new Set(lines).size).toBe(4);
  expect(wire.content + wire.title).not.toMatch(/alpha|beta|Secret/);
  expect(lines.every((line) => /^[A-Za-z0-9_-]+$/.test(line))).toBe(true);
});

it("rejects a wrong or malformed key with a WrongKeyError and a plain document with a NotEncryptedError, showing nothing", async () => {
  const { id } = await createEncryptedDocument(s.client, { title: "T", content: "one\ntwo" }, generateDocumentKey());
  const wrong = await rejection(openDocument(s.client, id, { ...FAST, key: generateDocumentKey() }));
  expect(wrong).toBeInstanceOf(WrongKeyError);
  expect(wrong.message).toBe("the link's key does not open this document");
  expect(await rejection(openDocument(s.client, id, { ...FAST, key: "not a key!" }))).toBeInstanceOf(WrongKeyError);
  expect(await rejection(withDocumentKey(s.client, generateDocumentKey()).getDocument(id))).toBeInstanceOf(WrongKeyError);
  const { readId } = await s.client.read.createLink(id);
  expect(await rejection(openReadOnly(s.client, readId, { key: generateDocumentKey() }))).toBeInstanceOf(WrongKeyError);
  const plain = await s.client.createDocument({ title: "Plain", content: "x" });
  expect(await rejection(openDocument(s.client, plain.id, { ...FAST, key: generateDocumentKey() }))).toBeInstanceOf(NotEncryptedError);
  expect(isEncryptedDocument(plain)).toBe(false);
});

it("shows a line that does not authenticate as such, in its place, and keeps the others", async () => {
  const key = generateDocumentKey();
  const { id } = await createEncryptedDocument(s.client, { title: "T", content: "first\nsecond\nthird" }, key);
  const wire = await stored(id);
  const lines = wire.content.split("\n");
  // One character of the second line's ciphertext changed, through a plain PUT as a hostile service could.
  const flipped = lines[1]!.slice(0, 40) + (lines[1]![40] === "A" ? "B" : "A") + lines[1]!.slice(41);
  const put = await fetch(`${s.baseUrl}/api/v1/documents/${id}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: wire.title, content: [lines[0], flipped, lines[2]].join("\n") }),
  });
  expect(put.status).toBe(200);
  const doc = await openDocument(s.client, id, { ...FAST, key });
  try {
    expect(doc.text).toBe(`first\n${UNREADABLE_LINE}\nthird`);
    expect(doc.title).toBe("T");
  } finally {
    doc.close();
  }
});

it("never re-encrypts an unchanged line: the other lines keep their ciphertext byte for byte, and a patch carries only the edited line", async () => {
  const key = generateDocumentKey();
  const { id } = await createEncryptedDocument(s.client, { title: "T", content: "keep me\nedit me\nkeep me too" }, key);
  const before = (await stored(id)).content.split("\n");
  const { doc, net } = await openLive(s.baseUrl, id, { key });
  try {
    for (const word of ["a", "ab", "abc"]) {
      doc.setText(`keep me\nedit me ${word}\nkeep me too`);
      await doc.whenSynced(5_000);
    }
    const after = (await stored(id)).content.split("\n");
    expect([after[0], after[2]]).toEqual([before[0], before[2]]);
    expect(after[1]).not.toBe(before[1]);
    const patches = net.calls("PATCH", "/content").map((request) => (request.body as { ops: Array<{ op: string; index: number; lines?: string[] }> }).ops);
    expect(patches.length).toBeGreaterThanOrEqual(1);
    for (const ops of patches) expect(ops.map(({ op, index, lines }) => ({ op, index, lines: lines?.length }))).toEqual([{ op: "replace", index: 1, lines: 1 }]);
    expect(doc.text).toBe("keep me\nedit me abc\nkeep me too");
  } finally {
    doc.close();
  }
});

it("pads every line to a bucket: lengths within one bucket give ciphertext of one length", async () => {
  const lengths = [0, 1, 10, 31, 32, 63, 64, 127, 128, 500];
  const content = lengths.map((n) => "x".repeat(n)).join("\n");
  const { id } = await createEncryptedDocument(s.client, { title: "T", content }, generateDocumentKey());
  const sizes = (await stored(id)).content.split("\n").map((line) => line.length);
  // Buckets of 32, 64, 128, 256 and 512 padded bytes (the plaintext and one byte of padding at least).
  const bucket = (n: number) => Math.ceil(((24 + n + 16) * 4) / 3);
  expect(sizes).toEqual([32, 32, 32, 32, 64, 64, 128, 128, 256, 512].map(bucket));
});

it("encrypts titles (at most 130 UTF-8 bytes), renames, history and rollback in plain text through the key", async () => {
  const key = generateDocumentKey();
  await expect(createEncryptedDocument(s.client, { title: "é".repeat(66), content: "" }, key)).rejects.toBeInstanceOf(TitleTooLongError);
  const { id } = await createEncryptedDocument(s.client, { title: "x".repeat(130), content: "v1 text" }, key);
  const doc = await openDocument(s.client, id, { ...FAST, key });
  const keyed = withDocumentKey(s.client, key);
  try {
    await doc.rename("Quarterly numbers");
    doc.setText("v3 text");
    await converged(keyed, id, [doc]);
    expect((await stored(id)).title).not.toContain("Quarterly");
    const history = await keyed.history(id);
    expect(history.map(({ version, title, content, changeType }) => ({ version, title, content, changeType }))).toEqual([
      { version: 1, title: "x".repeat(130), content: "v1 text", changeType: "CREATED" },
      { version: 2, title: "Quarterly numbers", content: "v1 text", changeType: "RENAMED" },
      { version: 3, title: "Quarterly numbers", content: "v3 text", changeType: "UPDATED" },
    ]);
    const rolledBack = await keyed.restore(id, 1);
    expect({ title: rolledBack.title, content: rolledBack.content, version: rolledBack.version }).toEqual({ title: "x".repeat(130), content: "v1 text", version: 4 });
    await until("the rollback in the live document", () => doc.text === "v1 text" && doc.title === "x".repeat(130));
  } finally {
    doc.close();
  }
});

it("changes the key in one version: the old key stops opening it, older versions stay unreadable and cannot be rolled back to", async () => {
  const oldKey = generateDocumentKey();
  const { id } = await createEncryptedDocument(s.client, { title: "Plan", content: "a\nb" }, oldKey);
  const newKey = generateDocumentKey();
  const changed = await changeDocumentKey(s.client, id, oldKey, newKey);
  expect({ title: changed.title, content: changed.content, version: changed.version }).toEqual({ title: "Plan", content: "a\nb", version: 2 });
  expect(await rejection(openDocument(s.client, id, { ...FAST, key: oldKey }))).toBeInstanceOf(WrongKeyError);
  const keyed = withDocumentKey(s.client, newKey);
  expect((await keyed.history(id)).map(({ version, title, content }) => ({ version, title, content }))).toEqual([
    { version: 1, title: UNREADABLE_TITLE, content: "" },
    { version: 2, title: "Plan", content: "a\nb" },
  ]);
  expect(await rejection(keyed.restore(id, 1))).toBeInstanceOf(WrongKeyError);
  expect((await stored(id)).version).toBe(2);
});

it("follows an encrypted document read-only with the key: plain text and title, live", async () => {
  const key = generateDocumentKey();
  const { id } = await createEncryptedDocument(s.client, { title: "Shared", content: "one" }, key);
  const { readId } = await s.client.read.createLink(id);
  const reader = await openReadOnly(s.client, readId, { key, waitSeconds: 2 });
  const doc = await openDocument(s.client, id, { ...FAST, key });
  try {
    expect({ text: reader.text, title: reader.title }).toEqual({ text: "one", title: "Shared" });
    doc.setText("one\ntwo");
    await doc.rename("Shared notes");
    await until("the edit and rename in the reader", () => reader.text === "one\ntwo" && reader.title === "Shared notes");
    expect((await withDocumentKey(s.client, key).read.document(readId)).content).toBe("one\ntwo");
  } finally {
    doc.close();
    reader.close();
  }
});

/** A PendingStore in memory for one document; `kept()` is its record. */
function memoryStore(): { store: PendingStore; kept: () => StoredPending | undefined } {
  let record: StoredPending | undefined;
  return {
    store: { load: () => structuredClone(record), save: (_, next) => void (record = structuredClone(next)), append: (_, entry) => void record!.entries.push(entry) },
    kept: () => record,
  };
}

it("keeps unsent edits sealed in the pending store, and a reopened document sends them", async () => {
  const key = generateDocumentKey();
  const { id } = await createEncryptedDocument(s.client, { title: "T", content: "start" }, key);
  const { store: pendingStore, kept } = memoryStore();
  const { doc, net } = await openLive(s.baseUrl, id, { key, pendingStore });
  net.hook = (request) => (request.method === "PATCH" ? { kind: "fail-before" } : undefined);
  doc.setText("start\nconfidential words");
  await until("the patch sent", () => net.calls("PATCH", "/content").length > 0);
  const record = kept();
  doc.close();
  expect(JSON.stringify(record)).not.toMatch(/confidential|start/);
  const reopened = await openDocument(s.client, id, { ...FAST, key, pendingStore });
  try {
    await reopened.whenSynced(5_000);
    expect(reopened.text).toBe("start\nconfidential words");
    expect((await withDocumentKey(s.client, key).getDocument(id)).content).toBe("start\nconfidential words");
  } finally {
    reopened.close();
  }
});

it("leaves out unsent edits sealed under an earlier key but keeps their clientId's next seq", async () => {
  const oldKey = generateDocumentKey();
  const { id } = await createEncryptedDocument(s.client, { title: "T", content: "start" }, oldKey);
  const { store: pendingStore, kept } = memoryStore();
  const first = await openLive(s.baseUrl, id, { key: oldKey, pendingStore });
  first.net.hook = (request) => (request.method === "PATCH" ? { kind: "fail-before" } : undefined);
  first.doc.setText("start\nlost with the old key");
  await until("the patch sent", () => first.net.calls("PATCH", "/content").length > 0);
  first.doc.close();
  const sealed = kept()!;
  const newKey = generateDocumentKey();
  await changeDocumentKey(s.client, id, oldKey, newKey);
  const { doc, net } = await openLive(s.baseUrl, id, { key: newKey, pendingStore, clientId: sealed.clientId });
  try {
    expect(doc.text).toBe("start");
    doc.setText("start\nnew");
    await doc.whenSynced(5_000);
    // The snapshot written at closing says the next seq is 2 (seq 1 went out with the lost body).
    expect([sealed.nextSeq, sealed.entries.length]).toEqual([2, 0]);
    expect(net.calls("PATCH", "/content").map((request) => (request.body as { clientId: string; seq: number }).seq)).toEqual([2]);
    expect((await withDocumentKey(s.client, newKey).getDocument(id)).content).toBe("start\nnew");
  } finally {
    doc.close();
  }
});

it("never sends under a key that changed meanwhile: edits made offline stay unsent, and the document says its key is lost", async () => {
  const oldKey = generateDocumentKey();
  const { id } = await createEncryptedDocument(s.client, { title: "T", content: "kept" }, oldKey);
  const { doc, net } = await openLive(s.baseUrl, id, { key: oldKey, waitSeconds: 1 });
  const lost: string[] = [];
  doc.on("key-lost", () => lost.push("key-lost"));
  try {
    // Offline: the edit's patch and the feed fail before they reach the service.
    net.hook = () => ({ kind: "fail-before" });
    doc.edit([{ from: 4, to: 4, insert: "\nstale" }]);
    await until("offline", () => doc.status === "offline");
    const newKey = generateDocumentKey();
    await changeDocumentKey(s.client, id, oldKey, newKey);
    const rewritten = await stored(id);
    net.hook = undefined;
    doc.retryNow();
    await until("the key found lost", () => doc.keyLost);
    expect(lost).toEqual(["key-lost"]);
    // Nothing it held went out: the service holds the rewrite, one version, and the edit stays local only.
    expect(await stored(id)).toEqual(rewritten);
    expect((await withDocumentKey(s.client, newKey).getDocument(id)).content).toBe("kept");
    expect(doc.text).toBe("kept\nstale");
    expect(() => doc.edit([{ from: 0, to: 0, insert: "x" }])).toThrow("the document's key changed");
  } finally {
    doc.close();
  }
});

it("stops within one feed answer when another client changes the key", async () => {
  const oldKey = generateDocumentKey();
  const { id } = await createEncryptedDocument(s.client, { title: "T", content: "one\ntwo" }, oldKey);
  const { doc } = await openLive(s.baseUrl, id, { key: oldKey, waitSeconds: 5 });
  try {
    const lost = new Promise<string>((resolve) => doc.on("key-lost", () => resolve(doc.text)));
    await changeDocumentKey(s.client, id, oldKey, generateDocumentKey());
    // The rewrite arrives as lines that do not open; the title does not either: the key is lost, and
    // the text stays as it was shown.
    expect(await lost).toBe("one\ntwo");
    expect(doc.keyLost).toBe(true);
  } finally {
    doc.close();
  }
});
