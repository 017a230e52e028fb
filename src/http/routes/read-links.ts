import { Type, type TSchema } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ChangeFeedSchema, ChangesQuery } from "../../api/changes.js";
import { DocumentIdParams, HistoryEntrySchema } from "../../api/documents.js";
import { EXAMPLE_READ_ID, ReadIdParams, ReadLinkSchema, ReadOnlyDocumentSchema } from "../../api/read-links.js";
import type { ReadLinks } from "../../service/read-links.js";
import { answerLongPoll, type FeedBodies } from "./feed-reply.js";
import { problemResponse } from "./problem-response.js";

// docs/sharing.md: what a read-only link is, and what it never shows.

const iso = (ms: number) => new Date(ms).toISOString();
const tags = ["documents"];

/** Feed answers serialized for this route's requests; never the bytes of another route (feed-reply.ts). */
const bodies: FeedBodies = new WeakMap();

/** A problem answer of `status`, described. */
const problem = (description: string) => ({ ...problemResponse, description });
/** A JSON answer with its description and one example. */
const answer = (schema: TSchema, description: string, example: unknown) => ({ ...schema, "x-response-description": description, examples: [example] });

const EXAMPLE_TIME = "2026-01-05T10:00:00.000Z";
const exampleDocument = { readId: EXAMPLE_READ_ID, title: "Plan", content: "- [ ] ship it", version: 4, createdAt: EXAMPLE_TIME, updatedAt: "2026-01-05T10:12:30.000Z" };
const exampleHistory = [
  { documentId: EXAMPLE_READ_ID, version: 1, title: "Plan", content: "", changeType: "CREATED", timestamp: EXAMPLE_TIME },
  { documentId: EXAMPLE_READ_ID, version: 4, title: "Plan", content: "- [ ] ship it", changeType: "UPDATED", timestamp: "2026-01-05T10:12:30.000Z", clientId: "3b9f0c2a", displayName: "Ann" },
];
const exampleFeed = { fromVersion: 3, currentVersion: 4, ops: [{ op: "replace", index: 0, count: 1, lines: ["- [ ] ship it"] }], events: [{ version: 4, changeType: "UPDATED", clientId: "3b9f0c2a", displayName: "Ann" }] };

const malformed = problem("a document id or read id that is not a UUID, or a bad query parameter");
const noDocument = problem("no such document (or, for a new link, a deleted one)");

/** The read-only links of documents: made, rotated and revoked by the document's id; read by the link's id. */
export const readLinkRoutes: FastifyPluginAsyncTypebox<{ readLinks: ReadLinks }> = async (app, { readLinks }) => {
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
        response: { 201: answer(ReadLinkSchema, "the new read-only link", { readId: EXAMPLE_READ_ID }), 400: malformed, 404: noDocument },
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
        response: { 200: answer(ReadLinkSchema, "the current read-only link", { readId: EXAMPLE_READ_ID }), 400: malformed, 404: problem("no such document, or it has no read link") },
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
        response: { 204: Type.Null({ description: "the link is gone" }), 400: malformed, 404: problem("no such document, or it has no read link") },
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
          200: answer(ReadOnlyDocumentSchema, "the document, read-only", exampleDocument),
          400: malformed,
          404: problem("unknown or revoked read id, or the document is deleted"),
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
        response: { 200: answer(Type.Array(HistoryEntrySchema), "the milestones oldest first, plus the newest state", exampleHistory), 400: malformed, 404: problem("unknown or revoked read id") },
      },
    },
    async (request) => (await readLinks.history(request.params.readId)).map((entry) => ({ ...entry, timestamp: iso(entry.timestamp) })),
  );

  app.get(
    "/read/:readId/changes",
    {
      schema: {
        tags,
        operationId: "readChanges",
        summary: "A document's change feed through its read-only link",
        description:
          "The same long poll as GET /documents/{documentId}/changes, answer for answer (a deleted document's feed still delivers DELETED). 404 for an unknown or revoked read id, also when the link is revoked while the request waits and a change arrives.",
        params: ReadIdParams,
        querystring: ChangesQuery,
        response: {
          200: answer(ChangeFeedSchema, "everything since `since`", exampleFeed),
          204: Type.Null({ description: "nothing new within the wait" }),
          400: malformed,
          404: problem("unknown or revoked read id"),
        },
      },
    },
    async (request, reply) =>
      answerLongPoll(reply, bodies, (departure) => readLinks.changes(request.params.readId, request.query.since, request.query.wait ?? 25, departure)),
  );
};
