import { Type, type Static } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { toLineOperation } from "../../core/normalized-op.js";
import type { ContentPatcher } from "../../service/patch-content.js";
import { ContentConflict, ContentPatchRequest, ContentPatchResult } from "../../api/content.js";
import { DocumentIdParams } from "../../api/documents.js";
import { examples } from "../../api/examples.js";
import { ProblemDetailSchema } from "../../api/problem.js";
import { json, JSON_MEDIA, problem, PROBLEM_MEDIA, problemExamples, shared, withExample } from "../openapi-answers.js";
import { opsJson } from "../ops-json.js";
import { JSON_CONTENT_TYPE, sendJsonText } from "./json-reply.js";

/**
 * The 409's two bodies under one schema, the same for both media types: generators that take one
 * media type per status (hey-api) and validating proxies that match a body to a schema by status
 * (Prism) would otherwise type or check one body as the other. A client tells them apart by a field
 * only one has (`currentVersion` or `type`), or by the media type.
 */
const ContentPatchConflict = Type.Unsafe<Static<typeof ContentConflict> | Static<typeof ProblemDetailSchema>>({
  title: "ContentPatchConflict",
  description: "a true overlap (ContentConflict, `application/json`) or a reused `seq` (ProblemDetail `seq-reused`, `application/problem+json`)",
  oneOf: [ContentConflict, ProblemDetailSchema],
});

/** The 409's two shapes, told apart by their fields and media types, and named by their examples. */
const conflictAnswer = {
  description:
    "Either a true overlap with versions committed since the base: a ContentConflict (`application/json`) whose opsSinceBase lead from the base to the current version; " +
    "nothing was written, and the client takes the foreign version or forces its own. Or a resend of this `clientId` and `seq` with a different body: " +
    "the `seq-reused` problem (`application/problem+json`), a client bug, never applied.",
  content: {
    [JSON_MEDIA]: {
      schema: ContentPatchConflict,
      examples: { overlap: { summary: "a true overlap: ContentConflict", value: examples.conflict } },
    },
    [PROBLEM_MEDIA]: {
      schema: ContentPatchConflict,
      examples: problemExamples([{ code: "seq-reused", detail: "seq 17 of client c-4f9a1e07 was already used for a different patch" }]),
    },
  },
};

/** PATCH …/content: live editing by line diffs. */
export const contentRoutes: FastifyPluginAsyncTypebox<{ patcher: ContentPatcher; bodyLimit: number }> = async (app, { patcher, bodyLimit }) => {
  app.patch(
    "/documents/:documentId/content",
    {
      // A patch may carry lines up to a document's size (src/http/json-bodies.ts).
      bodyLimit,
      schema: {
        tags: ["documents"],
        operationId: "patchContent",
        summary: "Apply a line diff; a stale base is shifted, a true overlap is a 409 ContentConflict",
        description:
          "Applies a line diff built against `baseVersion` (its text's checksum proves the base). A stale base whose ops do not overlap the versions since is shifted " +
          "over them and accepted, with those versions' ops in `opsSinceBase`; a true overlap is a 409 ContentConflict. Repeating a `clientId` + `seq` returns the first answer " +
          "and writes nothing. See docs/editing-protocol.md.",
        params: DocumentIdParams,
        body: withExample(ContentPatchRequest, examples.patchRequest),
        response: {
          200: json("accepted: the new version, the foreign ops the patch was shifted over, and the new text's checksum", ContentPatchResult, examples.patchResult),
          404: shared("DocumentNotFound"),
          409: conflictAnswer,
          422: problem(
            "the base cannot be used: its checksum does not match, an op lies outside its text, the base version is gone, or the versions since it change more than the service rebases over (1 MiB of ops); the client reloads once",
            { code: "checksum-mismatch", detail: "checksum does not match the text of base version 2; reload the document" },
            { code: "range-outside-text", detail: "op at index 9 with count 1 is outside the base text of 3 lines" },
            { code: "base-unavailable", detail: "the text of base version 2 cannot be rebuilt; reload the document" },
            {
              code: "rebase-too-large",
              detail: "the versions since base 2 change more than 1048576 bytes of ops; reload the document and send the change on its current version",
            },
          ),
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
      // author among many), and opsJson writes them without copying them into their wire form first.
      const body = `{"version":${outcome.version},"opsSinceBase":${opsJson(outcome.opsSinceBase)},"checksum":${JSON.stringify(outcome.checksum)}}`;
      return sendJsonText(reply, body);
    },
  );
};
