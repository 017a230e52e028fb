import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ChangeFeed, ChangeFeedView } from "../../service/change-feed.js";
import { ChangeFeedSchema, ChangesQuery } from "../../api/changes.js";
import { DocumentIdParams } from "../../api/documents.js";
import { examples } from "../../api/examples.js";
import { JSON_MEDIA, noContent, shared } from "../openapi-answers.js";
import { changeFeedJson } from "../ops-json.js";

/** What Fastify sends a JSON body with. */
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** The serialized body of each answer still in use, so that an answer shared by many requests is serialized once. */
const bodies = new WeakMap<ChangeFeedView, Buffer>();

const feedAnswer = {
  description: "what changed since `since`: a diff (ChangeFeedDiff) or, where no exact diff exists, the full text (ChangeFeedContent)",
  content: {
    [JSON_MEDIA]: {
      schema: ChangeFeedSchema,
      examples: {
        diff: { summary: "a diff from `since` (ChangeFeedDiff)", value: examples.feedDiff },
        content: { summary: "the full text instead (ChangeFeedContent): since=0, compacted or ahead", value: examples.feedContent },
      },
    },
  },
};

/** GET …/changes: the long-polling change feed. */
export const changeRoutes: FastifyPluginAsyncTypebox<{ feed: ChangeFeed }> = async (app, { feed }) => {
  app.get(
    "/documents/:documentId/changes",
    {
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
