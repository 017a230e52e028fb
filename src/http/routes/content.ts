import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { toLineOperation } from "../../core/normalized-op.js";
import type { ContentPatcher } from "../../service/patch-content.js";
import { ContentConflict, ContentPatchRequest, ContentPatchResult } from "../../api/content.js";
import { DocumentIdParams } from "../../api/documents.js";
import { ProblemDetailSchema } from "../../api/problem.js";

const problem = { content: { "application/problem+json": { schema: ProblemDetailSchema } } };

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
          .type("application/json; charset=utf-8")
          .send({ currentVersion: outcome.currentVersion, opsSinceBase: outcome.opsSinceBase.map(toLineOperation) });
      }
      return {
        version: outcome.version,
        opsSinceBase: outcome.opsSinceBase.map(toLineOperation),
        ...(outcome.checksum !== undefined ? { checksum: outcome.checksum } : {}),
      };
    },
  );
};
