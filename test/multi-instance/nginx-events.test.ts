import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { checksum, type DocumentJson } from "../support/http-expect.js";
import { CI_IS_SET, describePostgres } from "../support/postgres.js";
import { change, openEventStream, type EventStream } from "../support/event-stream-client.js";
import { Cluster, DOCUMENTS, until, type Instance } from "./instances.js";
import { NGINX_CONF, freePort, nginxMissing, renderNginxConfig, startNginx, type Nginx } from "./nginx.js";

// deploy/nginx.conf in front of two instances on PostgreSQL: an event stream read through nginx
// gets each frame as the instance writes it (nginx buffers nothing of it), whichever instance the
// change was committed on (docs/api.md, "The event stream").

let cluster: Cluster | undefined;
let nginx: Nginx | undefined;
let dir: string | undefined;
const streams: EventStream[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  for (const socket of sockets.splice(0)) socket.destroy();
  await nginx?.stop();
  await cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  nginx = cluster = dir = undefined;
});

const missing = nginxMissing();
if (missing && !CI_IS_SET) console.warn(`${missing}: skipping the event stream through nginx. Install nginx, or set CI to make this a failure.`);

const appendB = { baseVersion: 1, checksum: checksum("a"), clientId: "c-ann", seq: 1, ops: [{ op: "insert", index: 1, lines: ["b"] }] };
const answerB = '{"currentVersion":2,"events":[{"version":2,"changeType":"UPDATED","clientId":"c-ann"}],"fromVersion":1,"ops":[{"op":"insert","index":1,"lines":["b"]}]}';
const waiters = (instance: Instance) => instance.services.hub.stats().waiters;

/** Two instances behind nginx running deploy/nginx.conf; nginx's origin once it answers. */
async function behindNginx(): Promise<string> {
  cluster = await Cluster.start(2);
  dir = mkdtempSync(join(tmpdir(), "folio-nginx-events-"));
  const listenPort = await freePort();
  const upstreamPorts = cluster.instances.map((instance) => Number(new URL(instance.origin).port));
  nginx = startNginx(dir, renderNginxConfig(readFileSync(NGINX_CONF, "utf8"), { dir, listenPort, upstreamPorts }));
  const origin = `http://127.0.0.1:${listenPort}`;
  // nginx is up when it answers the readiness probe (bounded: 200 tries, 25 ms apart).
  for (let attempt = 0; attempt < 200; attempt++) {
    const ready = await fetch(`${origin}/health/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (ready === 200) return origin;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nginx did not come up: ${nginx.errors()}`);
}

async function post(origin: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, body: (await response.json()) };
}

describePostgres("event streams through nginx with deploy/nginx.conf", () => {
  it.skipIf(missing !== undefined && !CI_IS_SET)("passes the opening comment and each change on at once, for a document's stream and a read link's", async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the nginx test must run`);
    const origin = await behindNginx();
    const created = await post(origin, DOCUMENTS, { title: "Plan", content: "a" });
    expect(created.status).toBe(201);
    const { id } = created.body as DocumentJson;
    const { readId } = (await post(origin, `${DOCUMENTS}/${id}/read-link`)).body as { readId: string };

    const own = await openEventStream(origin, `${DOCUMENTS}/${id}/events?since=1`);
    const read = await openEventStream(origin, `/api/v1/read/${readId}/events?since=1`);
    streams.push(own, read);
    // nginx takes the instance's X-Accel-Buffering for itself: it does not reach the client.
    expect({ status: own.status, type: own.headers["content-type"], buffering: own.headers["x-accel-buffering"] }).toEqual({
      status: 200,
      type: "text/event-stream",
      buffering: undefined,
    });
    // Eight bytes, the only ones until a change: with nginx buffering they would not come through.
    expect(await own.next(2_000)).toEqual({ comment: "open" });
    expect(await read.next(2_000)).toEqual({ comment: "open" });
    await until("both streams waiting", () => waiters(cluster!.a) + waiters(cluster!.b) === 2);

    const patchedAt = performance.now();
    const patch = await fetch(`${origin}${DOCUMENTS}/${id}/content`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(appendB) });
    expect(patch.status).toBe(200);
    expect(await own.next(2_000)).toEqual(change(2, answerB));
    expect(await read.next(2_000)).toEqual(change(2, answerB));
    expect(performance.now() - patchedAt).toBeLessThan(1_000);

    own.close();
    read.close();
    await until("nginx's log of both streams", () => (nginx!.accessLog().match(/"GET \/api\/v1\/(documents\/\{id\}|read\/\{readId\})\/events" 200 /g) ?? []).length === 2);
  }, 60_000);

  it.skipIf(missing !== undefined && !CI_IS_SET)("holds no stream for a client that does not read: the instance's stream waits for it instead of nginx buffering it", async () => {
    if (missing) throw new Error(`${missing}; CI is set, so the nginx test must run`);
    const origin = await behindNginx();
    const created = await post(origin, DOCUMENTS, { title: "Plan", content: "a" });
    const { id } = created.body as DocumentJson;
    const socket = connect({ host: "127.0.0.1", port: Number(new URL(origin).port) });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    socket.write(`GET ${DOCUMENTS}/${id}/events?since=1 HTTP/1.1\r\nHost: folio\r\nAccept: text/event-stream\r\n\r\n`);
    const allWaiting = () => waiters(cluster!.a) + waiters(cluster!.b);
    await until("the stream's wait", () => allWaiting() === 1);

    // 4 MB answers, at most 12 (48 MB): with nginx passing the stream unbuffered, the connections'
    // buffers fill and the instance's stream stops asking for answers (no wait in its hub) until its
    // client reads; an nginx that buffered would take every answer into its temporary files.
    let stuck = false;
    for (let version = 1; version <= 12 && !stuck; version++) {
      const put = await fetch(`${origin}${DOCUMENTS}/${id}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Plan", content: String(version % 10).repeat(4_000_000) }),
      });
      expect(put.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      stuck = allWaiting() === 0;
    }

    expect(stuck).toBe(true);
  }, 120_000);
});
