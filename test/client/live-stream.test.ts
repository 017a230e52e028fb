import { describe, expect, it } from "vitest";
import { createClient, openDocument, openReadOnly, type LiveDocument } from "../../src/client/index.js";
import { recordingFetch, type RecordingFetch, type Verdict } from "../support/client-fetch.js";
import { servedAppPerTest } from "../support/app-per-test.js";
import { FAST, converged } from "../support/client-harness.js";
import { waitUntil } from "../support/wait-until.js";

// A live document with `feed: "stream"` follows the event stream (docs/api.md, "The event stream")
// against the real service on loopback, and falls back to the long poll by itself when the service
// has no stream (an older one answers 404 route-not-found) or a proxy holds its first frame back.

const s = servedAppPerTest();
const opened: Array<{ close(): void }> = [];

/** A live document on its own recording fetch, following the feed by its stream; closed after the test. */
async function live(id: string, hook?: (path: string) => Verdict | undefined): Promise<{ doc: LiveDocument; net: RecordingFetch }> {
  const net = recordingFetch();
  if (hook) net.hook = (request) => (request.path.split("?")[0]!.endsWith("/events") ? hook(request.path) : undefined);
  const doc = await openDocument(createClient({ baseUrl: s.baseUrl, fetch: net.fetch }), id, { ...FAST, feed: "stream", firstFrameMs: 500 });
  opened.push(doc);
  return { doc, net };
}

async function document(content: string): Promise<string> {
  return (await s.client.createDocument({ title: "T", content })).id;
}

const closeAll = () => opened.splice(0).forEach((doc) => doc.close());

describe("a live document following the event stream", () => {
  it("takes remote changes and its own from one stream, without a long poll", async () => {
    const id = await document("a\nb");
    const { doc, net } = await live(id);
    const other = await live(id);
    try {
      await s.client.replaceDocument(id, { title: "T", content: "a\nb\nc" });
      expect(await converged(s.client, id, [doc, other.doc])).toBe("a\nb\nc");
      doc.setText("mine\nb\nc");
      other.doc.setText("a\nb\nc\ntheirs");
      expect(await converged(s.client, id, [doc, other.doc])).toBe("mine\nb\nc\ntheirs");

      expect({ streams: net.calls("GET", "/events").length, polls: net.calls("GET", "/changes").length }).toEqual({ streams: 1, polls: 0 });
      expect(net.calls("GET", "/events")[0]!.path).toBe(`/api/v1/documents/${id}/events?since=1`);
    } finally {
      closeAll();
    }
  });

  it("opens the stream again from its confirmed version when the service ends it", async () => {
    const id = await document("a");
    let first = true;
    // The first stream is the 204 of an instance shutting down; the next one is served.
    const { doc, net } = await live(id, () => (first ? ((first = false), { kind: "respond", response: () => new Response(null, { status: 204 }) }) : undefined));
    try {
      await s.client.replaceDocument(id, { title: "T", content: "b" });
      expect(await converged(s.client, id, [doc])).toBe("b");
      expect(net.calls("GET", "/events").length).toBe(2);
      expect(net.calls("GET", "/changes").length).toBe(0);
    } finally {
      closeAll();
    }
  });
});

describe("a live document falling back to the long poll", () => {
  it("takes the long poll when an older service answers the stream 404 route-not-found, and asks for the stream no more", async () => {
    const id = await document("a");
    const olderService: Verdict = {
      kind: "answer",
      status: 404,
      body: { type: "urn:folio:problem:route-not-found", title: "Not found", status: 404, detail: "no route GET /api/v1/documents/x/events", instance: "/x" },
    };
    const { doc, net } = await live(id, () => olderService);
    try {
      await s.client.replaceDocument(id, { title: "T", content: "a\nb" });
      expect(await converged(s.client, id, [doc])).toBe("a\nb");
      doc.setText("a\nb\nc");
      expect(await converged(s.client, id, [doc])).toBe("a\nb\nc");

      expect(net.calls("GET", "/events").length).toBe(1);
      expect(net.calls("GET", "/changes").length).toBeGreaterThan(0);
    } finally {
      closeAll();
    }
  });

  it("takes the long poll when no first frame comes within firstFrameMs, as behind a proxy that buffers the stream", async () => {
    const id = await document("a");
    const buffered: Verdict = { kind: "respond", response: () => new Response(new ReadableStream<Uint8Array>(), { status: 200, headers: { "content-type": "text/event-stream" } }) };
    const { doc, net } = await live(id, () => buffered);
    try {
      expect(await waitUntil(() => net.calls("GET", "/changes").length > 0, { maxMs: 5_000, pauseMs: 5 })).toBe(true);
      await s.client.replaceDocument(id, { title: "T", content: "b" });
      expect(await converged(s.client, id, [doc])).toBe("b");

      expect(net.calls("GET", "/events").length).toBe(1);
      expect(net.calls("GET", "/events")[0]!.settled).toBe(true);
    } finally {
      closeAll();
    }
  });
});

describe("a read-only document following the read link's event stream", () => {
  it("follows the text by the stream, and is revoked when the link is", async () => {
    const id = await document("a");
    const { readId } = await s.client.read.createLink(id);
    const net = recordingFetch();
    const doc = await openReadOnly(createClient({ baseUrl: s.baseUrl, fetch: net.fetch }), readId, { ...FAST, feed: "stream", firstFrameMs: 500 });
    try {
      await s.client.replaceDocument(id, { title: "T", content: "a\nb" });
      expect(await waitUntil(() => doc.text === "a\nb", { maxMs: 5_000, pauseMs: 5 })).toBe(true);

      await s.client.read.deleteLink(id);
      await s.client.replaceDocument(id, { title: "T", content: "c" });
      expect(await waitUntil(() => doc.revoked, { maxMs: 5_000, pauseMs: 5 })).toBe(true);
      expect(doc.text).toBe("a\nb");
      expect(net.calls("GET", "/changes").length).toBe(0);
      expect(net.calls("GET", "/events").map((call) => call.path.split("?")[0])).toEqual([`/api/v1/read/${readId}/events`, `/api/v1/read/${readId}/events`]);
    } finally {
      doc.close();
    }
  });
});
