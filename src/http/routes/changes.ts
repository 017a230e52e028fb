import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ChangeFeed } from "../../service/change-feed.js";
import { ChangeFeedSchema, ChangesQuery } from "../../api/changes.js";
import { DocumentIdParams } from "../../api/documents.js";
import { problemResponse as problem } from "./problem-response.js";
import { answerLongPoll, type FeedBodies } from "./feed-reply.js";

/** The serialized body of each answer still in use (feed-reply.ts). */
const bodies: FeedBodies = new WeakMap();

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
    async (request, reply) =>
      answerLongPoll(reply, bodies, (departure) => feed.changes(request.params.documentId, request.query.since, request.query.wait ?? 25, departure)),
  );
};
