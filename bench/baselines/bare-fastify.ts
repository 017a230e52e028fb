/**
 * Baseline server: bare Fastify, no plugins, no logging.
 * GET /json answers a small JSON; POST /echo answers a content patch with a hot-document answer; GET /hold holds the request until POST /release answers every
 * held one with a body the size of a change-feed answer.
 */
import Fastify, { type FastifyReply } from "fastify";

const app = Fastify({ logger: false });
const held = new Set<FastifyReply>();
const answer = {
  fromVersion: 1,
  currentVersion: 2,
  ops: [{ op: "replace", index: 0, count: 1, lines: ["line 0 changed by the waking patch"] }],
  events: [{ version: 2, changeType: "UPDATED", clientId: "bench-trigger" }],
};

app.get("/json", async () => ({ ok: true, name: "bare-fastify", version: 1 }));

// POST /echo: a content patch's body in, an answer the size of a hot-document patch's answer out
// (49 replaced lines, as with 50 clients on one document), nothing checked or stored: what Fastify
// and JSON alone cost for a patch's request and answer.
const echoOps = Array.from({ length: 49 }, (_, index) => ({ op: "replace", index, count: 1, lines: [`client ${index} seq 1000`] }));
app.post<{ Body: { seq?: number } }>("/echo", async (request) => ({
  version: Number(request.body.seq ?? 0),
  opsSinceBase: echoOps,
  checksum: `sha256:${"0".repeat(64)}`,
}));

app.get("/hold", (request, reply) => {
  held.add(reply);
  request.raw.once("close", () => held.delete(reply));
});

app.post("/release", async () => {
  const replies = [...held];
  held.clear();
  for (const reply of replies) void reply.send(answer);
  return { released: replies.length };
});

app.get("/held", async () => ({ held: held.size }));

const address = await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ msg: `listening on ${address}`, address })}\n`);
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
