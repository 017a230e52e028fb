import type { FastifyReply } from "fastify";

/** What Fastify sends a JSON body with. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Sends JSON a route wrote itself (its answer schema's shape, written by hand or serialized once for
 * many requests) as it is, with the content type Fastify would give it. A route's typed reply takes
 * only the schema's object; the plain reply taken here takes the text or bytes of one.
 */
export function sendJsonText(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type(JSON_CONTENT_TYPE).send(json);
}
