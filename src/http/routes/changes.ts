import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { LineOperationSchema } from "../../core/line-operation.js";
import { Int32, Int64 } from "../../api/scalars.js";
import { toLineOperation } from "../../core/normalized-op.js";
import type { ChangeFeed, ChangeFeedView } from "../../service/change-feed.js";
import { ProblemDetailSchema } from "../problem-details.js";
import { ChangeTypeSchema, DocumentIdParams } from "./documents.schemas.js";

const problem = { content: { "application/problem+json": { schema: ProblemDetailSchema } } };

const ChangeEventSchema = Type.Object(
  {
    version: Int64({ minimum: 1 }),
    changeType: ChangeTypeSchema,
    clientId: Type.Optional(Type.String({ description: "absent for changes without sender" })),
    displayName: Type.Optional(Type.String({ description: "unverified claim" })),
    title: Type.Optional(Type.String({ description: "only for RENAMED: the new title" })),
  },
  { title: "ChangeEvent" },
);

const ChangeFeedSchema = Type.Object(
  {
    fromVersion: Type.Optional(Int64({ minimum: 1, description: "base of the supplied diff; absent when content is supplied" })),
    currentVersion: Int64({ minimum: 1 }),
    ops: Type.Optional(Type.Array(LineOperationSchema, { description: "cumulative diff from fromVersion to currentVersion" })),
    content: Type.Optional(Type.String({ description: "full text instead of a diff" })),
    events: Type.Array(ChangeEventSchema),
  },
  { title: "ChangeFeed" },
);

const ChangesQuery = Type.Object({
  since: Int64({ description: "last seen version; 0 means nothing yet" }),
  wait: Type.Optional(Int32({ default: 25, description: "seconds to wait; clamped by service.feed.max-wait-seconds" })),
});

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
        // it is serialized once, by the route's own response serializer, and the same bytes are
        // sent to each of them with the content type Fastify would give them.
        let body = bodies.get(answer);
        if (!body) {
          const { ops, ...rest } = answer;
          body = Buffer.from(reply.serializeInput({ ...rest, ...(ops ? { ops: ops.map(toLineOperation) } : {}) }, "200") as string, "utf8");
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
