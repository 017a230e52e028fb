import { describe, expect, it } from "vitest";
import { latch } from "../support/client-fetch.js";
import { liveDocumentsPerTest } from "../support/app-per-test.js";
import { converged, replaceLine } from "../support/client-harness.js";
import { checksum } from "../support/http-expect.js";
import { waitUntil } from "../support/wait-until.js";

// The patch rules of a live document, each against the real service on loopback; faults are
// injected between the client and the service by the recording fetch.
// Here: sending local edits. On a 409: live-edit-conflict.test.ts; two people typing at once: live-edit-together.test.ts.

const { s, document, live } = liveDocumentsPerTest();

describe("a live document sending local edits", () => {
  it("loads the document and sends an edit as a minimal diff against the confirmed text, with a random clientId and seq 1", async () => {
    const id = await document("a\nb\nc");
    const { doc, net } = await live(id);
    expect({ text: doc.text, version: doc.version, title: doc.title, deleted: doc.deleted }).toEqual({ text: "a\nb\nc", version: 1, title: "T", deleted: false });

    doc.setText("a\nB\nc");
    await converged(s.client, id, [doc]);
    expect(net.calls("PATCH", "/content").map((call) => call.body)).toEqual([
      { baseVersion: 1, checksum: checksum("a\nb\nc"), clientId: expect.stringMatching(/^[0-9a-f]{32}$/) as string, seq: 1, ops: [replaceLine(1, "B")] },
    ]);
    expect(doc.clientId).not.toBe((await live(id)).doc.clientId);
    expect(doc.version).toBe(2);
  });

  it("keeps one patch in flight and sends the edits made meanwhile as one fresh diff when it is answered", async () => {
    const id = await document("a\nb\nc");
    const gate = latch();
    const { doc, net } = await live(id);
    net.hook = (request) => (request.method === "PATCH" && net.calls("PATCH", "/content").length === 1 ? { kind: "hold", until: gate.promise } : undefined);

    doc.setText("A\nb\nc");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    doc.setText("A\nB\nc");
    doc.setText("A\nB\nC");
    expect(doc.status).toBe("syncing");
    expect(net.calls("PATCH", "/content")).toHaveLength(1);
    gate.open();

    expect(await converged(s.client, id, [doc])).toBe("A\nB\nC");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body as { baseVersion: number; seq: number; ops: unknown });
    expect(bodies.map(({ baseVersion, seq, ops }) => ({ baseVersion, seq, ops }))).toEqual([
      { baseVersion: 1, seq: 1, ops: [replaceLine(0, "A")] },
      { baseVersion: 2, seq: 2, ops: [replaceLine(1, "B"), replaceLine(2, "C")] },
    ]);
  });

  it("rebuilds the text after a shifted answer by the rebuild rule, carrying later edits over, without a reload", async () => {
    const id = await document("a\nb\nc\nd");
    const gate = latch();
    const { doc, net } = await live(id);
    const other = (await live(id)).doc;
    net.hook = (request) => (request.method === "PATCH" ? { kind: "hold", until: gate.promise } : undefined);

    doc.setText("A\nb\nc\nd");
    expect(await waitUntil(() => net.calls("PATCH", "/content").length === 1)).toBe(true);
    other.setText("a\nb\nC\nd");
    await other.whenSynced(5_000);
    doc.setText("A\nb\nc\nD");
    gate.open();

    expect(await converged(s.client, id, [doc, other])).toBe("A\nb\nC\nD");
    expect(net.calls("GET", `/documents/${id}`)).toHaveLength(1);
  });

  it("takes an answer on its base as the patch applied; a wrong checksum in it is found by the next patch's 422, and the edits go again", async () => {
    const id = await document("a\nb");
    const { doc, net } = await live(id);
    net.hook = (request) =>
      request.method === "PATCH" && net.calls("PATCH", "/content").length === 1
        ? { kind: "edit-answer", change: (body) => ({ ...(body as object), checksum: checksum("something else") }) }
        : undefined;

    doc.setText("a\nB");
    await doc.whenSynced(5_000);
    doc.setText("a\nB\nc");
    expect(await converged(s.client, id, [doc])).toBe("a\nB\nc");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body as { seq: number; baseVersion: number; checksum: string });
    expect(bodies.map(({ seq, baseVersion, checksum }) => ({ seq, baseVersion, checksum }))).toEqual([
      { seq: 1, baseVersion: 1, checksum: checksum("a\nb") },
      { seq: 2, baseVersion: 2, checksum: checksum("something else") },
      { seq: 3, baseVersion: 2, checksum: checksum("a\nB") },
    ]);
    expect(net.calls("GET", `/documents/${id}`)).toHaveLength(2);
  });

  it("on a 422 reloads once and sends the edits again as a fresh diff with the next seq", async () => {
    const id = await document("a\nb");
    const { doc, net } = await live(id);
    net.hook = (request, index) =>
      request.method === "PATCH" && net.calls("PATCH", "/content")[0] === net.sent[index]
        ? { kind: "tamper", change: (body) => ({ ...body, checksum: checksum("not the base") }) }
        : undefined;

    doc.setText("a\nb\nc");
    expect(await converged(s.client, id, [doc])).toBe("a\nb\nc");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body as { seq: number; baseVersion: number });
    expect(bodies.map(({ seq, baseVersion }) => ({ seq, baseVersion }))).toEqual([
      { seq: 1, baseVersion: 1 },
      { seq: 2, baseVersion: 1 },
    ]);
    expect(net.calls("GET", `/documents/${id}`)).toHaveLength(2);
  });

  it("resends the very same patch after a failure before sending and after a lost answer; the service applies it once", async () => {
    const id = await document("a");
    const { doc, net } = await live(id);
    const faults = ["fail-before", "lose-answer", "lose-answer"] as const;
    net.hook = (request) => {
      if (request.method !== "PATCH") return undefined;
      const kind = faults[net.calls("PATCH", "/content").length - 1];
      return kind ? { kind } : undefined;
    };

    doc.setText("a\nb");
    expect(await converged(s.client, id, [doc])).toBe("a\nb");
    const bodies = net.calls("PATCH", "/content").map((call) => call.body);
    expect(bodies).toHaveLength(4);
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1);
    expect((await s.client.history(id)).map((entry) => entry.version)).toEqual([1, 2]);
    expect(doc.version).toBe(2);
  });

  it.each([503, 429])("waits the Retry-After of a %s before sending the same patch again", async (status) => {
    const id = await document("a");
    const { doc, net } = await live(id);
    net.hook = (request) =>
      request.method === "PATCH" && net.calls("PATCH", "/content").length === 1
        ? { kind: "answer", status, headers: { "retry-after": "1" }, body: { type: "urn:folio:problem:x", title: "busy", status, detail: "later", instance: "/" } }
        : undefined;
    const statuses: string[] = [];
    doc.on("status", (value) => statuses.push(value));

    doc.setText("b");
    expect(await converged(s.client, id, [doc])).toBe("b");
    const [first, second] = net.calls("PATCH", "/content");
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_000);
    expect(second!.body).toEqual(first!.body);
    expect(statuses).toContain("offline");
    expect(statuses.at(-1)).toBe("synced");
  });

  it("sends the waiting patch and polls at once on retryNow(), not after their backoff, but never before a Retry-After", async () => {
    const id = await document("a");
    // Every wait after a failure is 20-40 s long: only retryNow() can end it within the test.
    const { doc, net } = await live(id, { retry: { initialMs: 40_000, maxMs: 40_000 } });
    let offline = true;
    net.hook = () => (offline ? { kind: "fail-before" } : undefined);
    doc.setText("b");
    expect(await waitUntil(() => doc.status === "offline" && net.calls("GET", "/changes").length > 0)).toBe(true);
    offline = false;
    expect(await waitUntil(() => doc.status === "synced", { maxMs: 500 })).toBe(false);
    doc.retryNow();
    expect(await waitUntil(() => doc.status === "synced", { maxMs: 3_000 })).toBe(true);
    expect((await s.client.getDocument(id)).content).toBe("b");
    // The feed polls again too: a change made elsewhere arrives.
    await s.client.patchContent(id, { baseVersion: 2, checksum: checksum("b"), clientId: "f".repeat(32), seq: 1, ops: [{ op: "replace", index: 0, count: 1, lines: ["c"] }] });
    expect(await waitUntil(() => doc.text === "c", { maxMs: 3_000 })).toBe(true);

    // A 503 with Retry-After: 2 is waited out whatever retryNow() says.
    const sent = net.calls("PATCH", "/content").length;
    net.hook = (request) =>
      request.method === "PATCH" && net.calls("PATCH", "/content").length === sent + 1
        ? { kind: "answer", status: 503, headers: { "retry-after": "2" }, body: { type: "urn:folio:problem:x", title: "busy", status: 503, detail: "later", instance: "/" } }
        : undefined;
    doc.setText("d");
    expect(await waitUntil(() => doc.status === "offline")).toBe(true);
    doc.retryNow();
    expect(await converged(s.client, id, [doc])).toBe("d");
    const [refused, resent] = net.calls("PATCH", "/content").slice(sent);
    expect(resent!.at - refused!.at).toBeGreaterThanOrEqual(2_000);
  });
});
