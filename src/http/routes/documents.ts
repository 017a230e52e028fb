import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { DocumentService, DocumentView, HistoryEntryView } from "../../service/documents.js";
import type { ListAccess } from "../../service/list-access.js";
import { ProblemDetailSchema } from "../../api/problem.js";
import {
  DocumentCreateRequest,
  DocumentIdParams,
  DocumentSchema,
  DocumentUpdateRequest,
  HistoryEntrySchema,
  RestoreRequest,
  TitlePatchRequest,
} from "../../api/documents.js";

const iso = (ms: number) => new Date(ms).toISOString();

function documentJson(document: DocumentView) {
  return { ...document, createdAt: iso(document.createdAt), updatedAt: iso(document.updatedAt) };
}

function historyJson(entry: HistoryEntryView) {
  return { ...entry, timestamp: iso(entry.timestamp) };
}

/** Parses an `Authorization: Basic …` header; `undefined` when absent or malformed. */
function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

// Error bodies leave as application/problem+json (problem-details.ts); the description says so.
const problem = { content: { "application/problem+json": { schema: ProblemDetailSchema } } };
const problems = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, problem]));
const listProblems = {
  401: {
    ...problem,
    description: "credentials missing or wrong",
    headers: { "WWW-Authenticate": Type.String({ description: 'Basic realm="documents", charset="UTF-8"' }) },
  },
  429: {
    ...problem,
    description: "locked after too many failed attempts",
    headers: { "Retry-After": Type.Integer({ minimum: 1, maximum: 31_536_000, description: "remaining whole seconds of the lock, rounded up (at most service.master-password.lock-seconds)" }) },
  },
};
const tags = ["documents"];

/** The document routes: CRUD, the protected list, history, restore and rename. */
export const documentRoutes: FastifyPluginAsyncTypebox<{ documents: DocumentService; listAccess: ListAccess }> = async (app, { documents, listAccess }) => {
  app.get(
    "/documents",
    {
      schema: {
        tags,
        operationId: "listDocuments",
        summary: "List every document (master password)",
        security: [{ masterPassword: [] }],
        response: { 200: Type.Array(DocumentSchema), ...listProblems },
      },
    },
    async (request, reply) => {
      try {
        await listAccess.check(basicCredentials(request.headers.authorization));
      } catch (error) {
        void reply.header("WWW-Authenticate", 'Basic realm="documents", charset="UTF-8"');
        throw error;
      }
      return (await documents.list()).map(documentJson);
    },
  );

  app.post(
    "/documents",
    { schema: { tags, operationId: "createDocument", summary: "Create a document", body: DocumentCreateRequest, response: { 201: DocumentSchema, ...problems(400, 413) } } },
    async (request, reply) => reply.code(201).send(documentJson(await documents.create(request.body))),
  );

  app.get(
    "/documents/:documentId",
    { schema: { tags, operationId: "getDocument", summary: "Read a document", params: DocumentIdParams, response: { 200: DocumentSchema, ...problems(400, 404) } } },
    async (request) => documentJson(await documents.get(request.params.documentId)),
  );

  app.put(
    "/documents/:documentId",
    {
      schema: {
        tags,
        operationId: "replaceDocument",
        summary: "Replace title and content",
        params: DocumentIdParams,
        body: DocumentUpdateRequest,
        response: { 200: DocumentSchema, ...problems(400, 404, 409, 413) },
      },
    },
    async (request) => documentJson(await documents.update(request.params.documentId, request.body)),
  );

  app.delete(
    "/documents/:documentId",
    { schema: { tags, operationId: "deleteDocument", summary: "Delete a document (its history stays)", params: DocumentIdParams, response: { 204: Type.Null(), ...problems(400, 404) } } },
    async (request, reply) => {
      await documents.remove(request.params.documentId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/documents/:documentId/history",
    {
      schema: {
        tags,
        operationId: "getHistory",
        summary: "The milestones oldest first, plus the newest state",
        params: DocumentIdParams,
        response: { 200: Type.Array(HistoryEntrySchema), ...problems(400, 404) },
      },
    },
    async (request) => (await documents.history(request.params.documentId)).map(historyJson),
  );

  app.post(
    "/documents/:documentId/restore",
    {
      schema: {
        tags,
        operationId: "restoreDocument",
        summary: "Restore a deleted document, or roll back to a version",
        params: DocumentIdParams,
        body: RestoreRequest,
        response: { 200: DocumentSchema, ...problems(400, 404, 409) },
      },
    },
    async (request) => documentJson(await documents.restore(request.params.documentId, request.body?.version)),
  );

  app.patch(
    "/documents/:documentId/title",
    {
      schema: {
        tags,
        operationId: "renameDocument",
        summary: "Rename (a RENAMED milestone)",
        params: DocumentIdParams,
        body: TitlePatchRequest,
        response: { 200: DocumentSchema, ...problems(400, 404, 409) },
      },
    },
    async (request) => documentJson(await documents.rename(request.params.documentId, request.body)),
  );
};
