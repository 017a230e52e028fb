import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ChangesQuery } from "../../api/changes.js";
import { DocumentIdParams, HistoryEntrySchema } from "../../api/documents.js";
import { EXAMPLE_READ_ID, ReadIdParams, ReadLinkSchema, ReadOnlyDocumentSchema } from "../../api/read-links.js";
import type { ReadLinks } from "../../service/read-links.js";
import { examples, EXAMPLE_DOCUMENT_ID } from "../../api/examples.js";
import { json, noContent, problem, shared } from "../openapi-answers.js";
import { feedAnswer, FeedReplies } from "./feed-reply.js";
import { HistoryAnswers } from "./history-answers.js";
import { historyJson } from "./documents.js";
import { sendJsonText } from "./json-reply.js";
import { WAITS } from "../wait-limit.js";

// docs/sharing.md: what a read-only link is, and what it never shows.

const iso = (ms: number) => new Date(ms).toISOString();
const tags = ["documents"];

/** A 404 answer of this file's routes, with its example detail. */
const notFound = (description: string, detail: string) => problem(description, { code: "not-found", detail, instance: `/api/v1/read/${EXAMPLE_READ_ID}` });

// The story of src/api/examples.ts, told through a read link.
const exampleDocument = (({ id: _id, ...rest }) => ({ readId: EXAMPLE_READ_ID, ...rest }))(examples.document);
const exampleHistory = examples.history.map((entry) => ({ ...entry, documentId: EXAMPLE_READ_ID }));

const malformed = shared("InvalidRequest");
const noDocument = problem("no such document (or, for a new link, a deleted one)", { code: "not-found", detail: `no document ${EXAMPLE_DOCUMENT_ID}` });
const noLink = problem("no such document, or it has no read link", { code: "not-found", detail: `document ${EXAMPLE_DOCUMENT_ID} has no read link` });

/** The read-only links of documents: made, rotated and revoked by the document's id; read by the link's id. */
export const readLinkRoutes: FastifyPluginAsyncTypebox<{ readLinks: ReadLinks }> = async (app, { readLinks }) => {
  const histories = new HistoryAnswers(historyJson);
  // A read id names one link however its hex digits are cased (the app does the same for documentId).
  app.addHook("preHandler", (request, _reply, done) => {
    const params = request.params as { readId?: string } | undefined;
    if (params?.readId) params.readId = params.readId.toLowerCase();
    done();
  });

  app.post(
    "/documents/:documentId/read-link",
    {
      schema: {
        tags,
        operationId: "createReadLink",
        summary: "Make a new read-only link (the earlier one stops working)",
        description:
          "Gives the document a new random read id and answers it. The document's earlier read link, if any, stops working at once on every instance (rotation). The link is no version: the document's version and history do not change. 404 for an unknown or deleted document.",
        params: DocumentIdParams,
        response: { 201: json("the new read-only link", ReadLinkSchema, { readId: EXAMPLE_READ_ID }), 400: malformed, 404: noDocument },
      },
    },
    async (request, reply) => reply.code(201).send({ readId: await readLinks.create(request.params.documentId) }),
  );

  app.get(
    "/documents/:documentId/read-link",
    {
      schema: {
        tags,
        operationId: "getReadLink",
        summary: "The document's current read-only link",
        description: "Answers the read id of the document's current read link; a deleted document keeps its link (its history and feed stay readable through it). 404 when the document has no link or never existed.",
        params: DocumentIdParams,
        response: { 200: json("the current read-only link", ReadLinkSchema, { readId: EXAMPLE_READ_ID }), 400: malformed, 404: noLink },
      },
    },
    async (request) => ({ readId: await readLinks.get(request.params.documentId) }),
  );

  app.delete(
    "/documents/:documentId/read-link",
    {
      schema: {
        tags,
        operationId: "deleteReadLink",
        summary: "Stop sharing read-only",
        description: "Removes the document's read link (a deleted document's too): every request through it answers 404 from then on, on every instance. 404 when the document has no link or never existed.",
        params: DocumentIdParams,
        response: { 204: noContent("the link is gone"), 400: malformed, 404: noLink },
      },
    },
    async (request, reply) => {
      await readLinks.revoke(request.params.documentId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/read/:readId",
    {
      schema: {
        tags,
        operationId: "readDocument",
        summary: "Read a document through its read-only link",
        description: "The document's title, content, version and times, with the read id instead of the document's id. 404 for an unknown or revoked read id, and while the document is deleted (it answers again after a restore).",
        params: ReadIdParams,
        response: {
          200: json("the document, read-only", ReadOnlyDocumentSchema, exampleDocument),
          400: malformed,
          404: notFound("unknown or revoked read id, or the document is deleted", `no read link ${EXAMPLE_READ_ID}`),
        },
      },
    },
    async (request) => {
      const document = await readLinks.document(request.params.readId);
      return { ...document, createdAt: iso(document.createdAt), updatedAt: iso(document.updatedAt) };
    },
  );

  app.get(
    "/read/:readId/history",
    {
      schema: {
        tags,
        operationId: "readHistory",
        summary: "A document's history through its read-only link",
        description: "The same entries as GET /documents/{documentId}/history, deleted documents included, with each entry's documentId set to the read id. 404 for an unknown or revoked read id.",
        params: ReadIdParams,
        response: { 200: json("the milestones oldest first, plus the newest state", Type.Array(HistoryEntrySchema), exampleHistory), 400: malformed, 404: notFound("unknown or revoked read id", `no read link ${EXAMPLE_READ_ID}`) },
      },
    },
    async (request, reply) => sendJsonText(reply, await histories.answer(request.params.readId, await readLinks.history(request.params.readId))),
  );

  // The feed's answers are serialized for this route's requests alone (feed-reply.ts).
  const replies = new FeedReplies();
  app.get(
    "/read/:readId/changes",
    {
      config: WAITS,
      schema: {
        tags,
        operationId: "readChanges",
        summary: "A document's change feed through its read-only link",
        description:
          "The same long poll as GET /documents/{documentId}/changes, answer for answer (a deleted document's feed still delivers DELETED). 404 for an unknown or revoked read id, also when the link is revoked while the request waits and a change arrives.",
        params: ReadIdParams,
        querystring: ChangesQuery,
        response: {
          200: feedAnswer,
          204: noContent("nothing new within the wait (or this instance is shutting down: ask again)"),
          400: malformed,
          404: notFound("unknown or revoked read id", `no read link ${EXAMPLE_READ_ID}`),
        },
      },
    },
    (request, reply) =>
      replies.send(reply, (signal) => readLinks.changes(request.params.readId, request.query.since, request.query.wait ?? 25, signal)),
  );
};
