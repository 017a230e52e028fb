import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { toLineOperation } from "../../core/normalized-op.js";
import type { ContentPatcher } from "../../service/patch-content.js";
import { ContentConflict, ContentPatchRequest, ContentPatchResult } from "../../api/content.js";
import { DocumentIdParams } from "../../api/documents.js";
import { ProblemDetailSchema } from "../../api/problem.js";
import { opsJson } from "../ops-json.js";
import { problemResponse as problem } from "./problem-response.js";

/** What Fastify sends a JSON body with. */
const JSON_CONTENT_TYPE = "application/json; charset=utf-8";


/** PATCH …/content: live editing by line diffs. */
export const contentRoutes: FastifyPluginAsyncTypebox<{ patcher: ContentPatcher }> = async (app, { patcher }) => {
  app.patch(
    "/documents/:documentId/content",
    {
      schema: {
        tags: ["documents"],
        operationId: "patchContent",
        summary: "Apply a line diff; a stale base is shifted, a true overlap is a 409 ContentConflict",
        params: DocumentIdParams,
        body: ContentPatchRequest,
        response: {
          200: ContentPatchResult,
          400: problem,
          404: problem,
          409: {
            description: "a true overlap (ContentConflict, application/json) or a reused seq (problem)",
            content: { "application/json": { schema: ContentConflict }, "application/problem+json": { schema: ProblemDetailSchema } },
          },
          413: problem,
          422: problem,
        },
      },
    },
    async (request, reply) => {
      const outcome = await patcher.patch(request.params.documentId, request.body);
      if (outcome.kind === "conflict") {
        return reply
          .code(409)
          .type(JSON_CONTENT_TYPE)
          .send({ currentVersion: outcome.currentVersion, opsSinceBase: outcome.opsSinceBase.map(toLineOperation) });
      }
      // ContentPatchResult, written by hand: the ops since the base are most of it (hundreds for an
      // author among many), and opsJson reuses the JSON of the lines they share with earlier answers.
      const body = `{"version":${outcome.version},"opsSinceBase":${opsJson(outcome.opsSinceBase)},"checksum":${JSON.stringify(outcome.checksum)}}`;
      // The typed reply expects the schema's shape; this is its serialized text.
      return reply.type(JSON_CONTENT_TYPE).send(body as never);
    },
  );
};
