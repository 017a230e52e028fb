import { Type, type Static } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { DocumentService, DocumentView, HistoryEntryView } from "../../service/documents.js";
import type { ListAccess } from "../../service/list-access.js";
import { EXAMPLE_DOCUMENT_ID, EXAMPLE_DOCUMENT_PATH, examples } from "../../api/examples.js";
import { json, noContent, problem, shared, withExample } from "../openapi-answers.js";
import {
  DocumentCreateRequest,
  DocumentIdParams,
  DocumentSchema,
  DocumentUpdateRequest,
  HistoryEntrySchema,
  RestoreRequest,
  TitlePatchRequest,
} from "../../api/documents.js";

import { AnswerCache, versionKey } from "./answer-cache.js";
import { HistoryAnswers } from "./history-answers.js";
import { sendJsonText } from "./json-reply.js";

const iso = (ms: number) => new Date(ms).toISOString();
const DOCUMENTS_PATH = "/api/v1/documents";
const BASIC_CHALLENGE = 'Basic realm="documents", charset="UTF-8"';

/** A document as DocumentSchema has it, its fields in the schema's order (answers written by hand keep it). */
function documentJson(document: DocumentView) {
  const { id, title, content, version } = document;
  return { id, title, content, version, createdAt: iso(document.createdAt), updatedAt: iso(document.updatedAt) };
}

/** A history entry as HistoryEntrySchema has it, in its order; the optional fields only when present. */
export function historyJson(entry: HistoryEntryView) {
  const { documentId, version, title, content, changeType, clientId, displayName } = entry;
  return {
    documentId,
    version,
    title,
    content,
    changeType,
    timestamp: iso(entry.timestamp),
    ...(clientId !== undefined ? { clientId } : {}),
    ...(displayName !== undefined ? { displayName } : {}),
  };
}

/** Parses an `Authorization: Basic …` header; `undefined` when absent or malformed. */
function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const tags = ["documents"];
const documentAnswer = (description: string, example: Static<typeof DocumentSchema> = examples.document) => json(description, DocumentSchema, example);
const listProblems = {
  401: {
    ...problem("credentials missing or wrong, or no master password configured (the list is then locked for everybody)", {
      code: "credentials-required",
      detail: "user or password is wrong",
      instance: DOCUMENTS_PATH,
    }),
    headers: { "WWW-Authenticate": Type.String({ description: 'the Basic challenge: `Basic realm="documents", charset="UTF-8"`', example: BASIC_CHALLENGE }) },
  },
  429: {
    ...problem(
      "locked for everybody after too many failed attempts (`list-locked`; the right password too, until the lock ends), or too many password checks under way at once (`list-busy`: nothing was checked or counted)",
      { code: "list-locked", detail: "too many failed attempts; try again in 42 s", instance: DOCUMENTS_PATH },
      { code: "list-busy", detail: "too many password checks under way; try again in 1 s", instance: DOCUMENTS_PATH },
    ),
    headers: {
      "Retry-After": Type.Integer({
        minimum: 1,
        maximum: 31_536_000,
        description: "remaining whole seconds of the lock, rounded up (at most service.master-password.lock-seconds); 1 for `list-busy`",
        example: 42,
      }),
    },
  },
};

/** The document routes: CRUD, the protected list, history, restore and rename. */
export const documentRoutes: FastifyPluginAsyncTypebox<{ documents: DocumentService; listAccess: ListAccess; bodyLimit: number }> = async (
  app,
  { documents, listAccess, bodyLimit },
) => {
  const answers = new AnswerCache();
  const histories = new HistoryAnswers(historyJson);
  app.get(
    "/documents",
    {
      schema: {
        tags,
        operationId: "listDocuments",
        summary: "List every document (master password)",
        description:
          "Every document that is not deleted. The only operation with credentials: HTTP Basic with user `admin` and the master password. " +
          "After service.master-password.max-failures failures in a row it answers 429 to everybody for service.master-password.lock-seconds.",
        security: [{ masterPassword: [] }],
        response: { 200: json("every document that is not deleted", Type.Array(DocumentSchema), [examples.document]), ...listProblems },
      },
    },
    async (request, reply) => {
      try {
        // A HEAD, or a request without Basic credentials, is no attempt: it is answered 401 and never counted.
        await listAccess.check(request.method === "HEAD" ? undefined : basicCredentials(request.headers.authorization));
      } catch (error) {
        void reply.header("WWW-Authenticate", BASIC_CHALLENGE);
        throw error;
      }
      return (await documents.list()).map(documentJson);
    },
  );

  app.post(
    "/documents",
    {
      // The create and replace bodies carry a document's text: src/http/json-bodies.ts.
      bodyLimit,
      schema: {
        tags,
        operationId: "createDocument",
        summary: "Create a document",
        description: "Creates a document at version 1 under a fresh UUID (a CREATED milestone). Its address is in `Location`; the UUID is its link.",
        body: withExample(DocumentCreateRequest, examples.createRequest),
        response: {
          201: {
            ...documentAnswer("the new document at version 1", examples.createdDocument),
            headers: { Location: Type.String({ description: "the new document's address, `/api/v1/documents/<id>`", example: EXAMPLE_DOCUMENT_PATH }) },
          },
        },
      },
    },
    async (request, reply) => {
      const created = documentJson(await documents.create(request.body));
      return reply.code(201).header("location", `${app.prefix}/documents/${created.id}`).send(created);
    },
  );

  app.get(
    "/documents/:documentId",
    {
      schema: {
        tags,
        operationId: "getDocument",
        summary: "Read a document",
        description: "The document's title, content and version; the version is the base for a content patch and the `since` of the feed.",
        params: DocumentIdParams,
        response: { 200: documentAnswer("the document"), 404: shared("DocumentNotFound") },
      },
    },
    // Written once per version (a big text's JSON costs milliseconds each time): answer-cache.ts.
    async (request, reply) => {
      const document = await documents.get(request.params.documentId);
      return sendJsonText(reply, await answers.get(versionKey(document.id, document.version), async () => JSON.stringify(documentJson(document))));
    },
  );

  app.put(
    "/documents/:documentId",
    {
      bodyLimit,
      schema: {
        tags,
        operationId: "replaceDocument",
        summary: "Replace title and content",
        description:
          "Replaces title and content as one milestone (the state before it becomes a milestone first). With `expectedVersion`, only when that is the current version.",
        params: DocumentIdParams,
        body: withExample(DocumentUpdateRequest, examples.updateRequest),
        response: {
          200: documentAnswer("the document after the change"),
          404: shared("DocumentNotFound"),
          409: problem("`expectedVersion` is not the current version: nothing was written", {
            code: "version-conflict",
            detail: "expectedVersion 3 is not the current version 4",
          }),
        },
      },
    },
    async (request) => documentJson(await documents.update(request.params.documentId, request.body)),
  );

  app.delete(
    "/documents/:documentId",
    {
      schema: {
        tags,
        operationId: "deleteDocument",
        summary: "Delete a document (its history stays)",
        description: "Deletes the document; its history survives (a DELETED milestone), and POST …/restore brings it back under the same UUID.",
        params: DocumentIdParams,
        response: { 204: noContent("deleted"), 404: shared("DocumentNotFound") },
      },
    },
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
        description: "The user-visible history: the milestones oldest first, plus always the newest state; sync versions are left out. A deleted document answers too.",
        params: DocumentIdParams,
        response: { 200: json("the history entries, oldest first", Type.Array(HistoryEntrySchema), examples.history), 404: shared("DocumentNeverExisted") },
      },
    },
    // A history holds a full text per milestone: each is read and written once (history-answers.ts).
    async (request, reply) => sendJsonText(reply, await histories.answer(request.params.documentId, await documents.history(request.params.documentId))),
  );

  app.post(
    "/documents/:documentId/restore",
    {
      schema: {
        tags,
        operationId: "restoreDocument",
        summary: "Restore a deleted document, or roll back to a version",
        description:
          "Without a body (or without `version`): brings a deleted document back with its last state (RESTORED). With `version`: that version's state, also as a rollback of a living document (ROLLED_BACK).",
        params: DocumentIdParams,
        body: withExample(RestoreRequest, examples.restoreRequest),
        response: {
          200: documentAnswer("the document after the restore", { ...examples.document, version: 5 }),
          404: problem(
            "no document ever had this id, or the target version does not exist or was compacted",
            { code: "not-found", detail: `no document ${EXAMPLE_DOCUMENT_ID}`, key: "document" },
            { code: "not-found", detail: `version 2 of document ${EXAMPLE_DOCUMENT_ID} was compacted`, key: "version" },
          ),
          409: problem("the document exists and no target version was given", {
            code: "document-exists",
            detail: `document ${EXAMPLE_DOCUMENT_ID} exists; name a version to roll back to`,
          }),
        },
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
        description: "Renames the document when `expectedVersion` is its current version; the RENAMED change event carries the new title to every client.",
        params: DocumentIdParams,
        body: withExample(TitlePatchRequest, examples.titlePatch),
        response: {
          200: documentAnswer("the renamed document", examples.renamedDocument),
          404: shared("DocumentNotFound"),
          409: problem("`expectedVersion` is not the current version: fetch the document and retry with its version", {
            code: "version-conflict",
            detail: "expectedVersion 3 is not the current version 4",
          }),
        },
      },
    },
    async (request) => documentJson(await documents.rename(request.params.documentId, request.body)),
  );
};
