import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ChangeFeed } from "../../service/change-feed.js";
import { ChangesQuery } from "../../api/changes.js";
import { DocumentIdParams } from "../../api/documents.js";
import { noContent, shared } from "../openapi-answers.js";
import { feedAnswer, FeedReplies } from "./feed-reply.js";
import { WAITS } from "../wait-limit.js";

/** GET …/changes: the long-polling change feed. */
export const changeRoutes: FastifyPluginAsyncTypebox<{ feed: ChangeFeed }> = async (app, { feed }) => {
  const replies = new FeedReplies();
  app.get(
    "/documents/:documentId/changes",
    {
      // Counted against service.rate-limit.waits-per-address (src/http/wait-limit.ts).
      config: WAITS,
      schema: {
        tags: ["documents"],
        operationId: "getChanges",
        summary: "Everything since a version; waits for a change when there is none",
        description:
          "Answers at once when there are versions after `since`; otherwise holds the request up to `wait` seconds (clamped by service.feed.max-wait-seconds) " +
          "and answers as soon as a change is committed, or 204 when the time runs out. Works on the history: a deleted document still delivers its DELETED event.",
        params: DocumentIdParams,
        querystring: ChangesQuery,
        response: {
          200: feedAnswer,
          204: noContent("nothing new within the wait (or this instance is shutting down: ask again)"),
          404: shared("DocumentNeverExisted"),
        },
      },
    },
    // Not async: the answer is sent from the feed's settlement (feed-reply.ts).
    (request, reply) => replies.send(reply, (signal) => feed.next(request.params.documentId, request.query.since, { waitSeconds: request.query.wait ?? 25, signal })),
  );
};
