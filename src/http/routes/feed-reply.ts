import type { FastifyReply } from "fastify";
import { toLineOperation } from "../../core/normalized-op.js";
import type { ChangeFeedView, Departure } from "../../service/change-feed.js";

/** What Fastify sends a JSON body with. */
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** Serialized answers still in use, per route: an answer shared by many requests is serialized once. */
export type FeedBodies = WeakMap<ChangeFeedView, Buffer>;

/**
 * Answers one long poll of a change feed: 204 when `poll` finds nothing within its wait, else the
 * answer as the route's 200 schema serializes it. The route's 200 schema decides the bytes, so
 * each route keeps its own {@link FeedBodies}: bytes made for one route never answer another.
 */
export async function answerLongPoll(
  reply: FastifyReply,
  bodies: FeedBodies,
  poll: (departure: Departure) => Promise<ChangeFeedView | undefined>,
): Promise<FastifyReply> {
  // A client that goes away ends its wait at once: no waiter and no timer stay behind.
  const departure: { gone: boolean; onGone?: () => void } = { gone: false };
  const onClose = () => {
    departure.gone = true;
    departure.onGone?.();
  };
  reply.raw.once("close", onClose);
  try {
    const answer = await poll(departure);
    if (!answer) return reply.code(204).send(null);
    // Waiters woken together (and polls that find the same head) share one answer object:
    // it is serialized once, by the route's own response serializer, and the same bytes are
    // sent to each of them with the content type Fastify would give them.
    let body = bodies.get(answer);
    if (!body) {
      const { ops, ...rest } = answer;
      body = Buffer.from(reply.serializeInput({ ...rest, ...(ops ? { ops: ops.map(toLineOperation) } : {}) }, "200") as string, "utf8");
      bodies.set(answer, body);
    }
    return reply.header("content-type", JSON_CONTENT_TYPE).send(body);
  } finally {
    reply.raw.off("close", onClose);
  }
}
