import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ChangeFeed, ChangeFeedView } from "../../service/change-feed.js";
import { ChangeFeedSchema, ChangesQuery } from "../../api/changes.js";
import { DocumentIdParams } from "../../api/documents.js";
import { changeFeedJson } from "../ops-json.js";
import { problemResponse as problem } from "./problem-response.js";

/** What Fastify sends a JSON body with. */
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** The serialized body of each answer still in use, so that an answer shared by many requests is serialized once. */
const bodies = new WeakMap<ChangeFeedView, Buffer>();

/** GET …/changes: the long-polling change feed. */
export const changeRoutes: FastifyPluginAsyncTypebox<{ feed: ChangeFeed }> = async (app, { feed }) => {
  app.get(
    "/documents/:documentId/changes",
    {
      schema: {
        tags: ["documents"],
        operationId: "getChanges",
        summary: "Everything since a version; waits for a change when there is none",
        params: DocumentIdParams,
        querystring: ChangesQuery,
        response: {
          200: ChangeFeedSchema,
          204: Type.Null({ description: "nothing new within the wait" }),
          400: problem,
          404: problem,
        },
      },
    },
    async (request, reply) => {
      // A client that goes away ends its wait at once: no waiter and no timer stay behind.
      const departure: { gone: boolean; onGone?: () => void } = { gone: false };
      const onClose = () => {
        departure.gone = true;
        departure.onGone?.();
      };
      reply.raw.once("close", onClose);
      try {
        const answer = await feed.changes(request.params.documentId, request.query.since, request.query.wait ?? 25, departure);
        if (!answer) return reply.code(204).send(null);
        // Waiters woken together (and polls that find the same head) share one answer object:
        // it is serialized once, and the same bytes are sent to each of them.
        let body = bodies.get(answer);
        if (!body) {
          body = Buffer.from(changeFeedJson(answer), "utf8");
          bodies.set(answer, body);
        }
        // The typed reply expects the schema's shape; these are its serialized bytes.
        return reply.header("content-type", JSON_CONTENT_TYPE).send(body as never);
      } finally {
        reply.raw.off("close", onClose);
      }
    },
  );
};
