import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { DocumentIdParams } from "../../api/documents.js";
import { CLIENT_ID, EXAMPLE_DOCUMENT_PATH } from "../../api/examples.js";
import { PRESENCE_STATE_BYTES, PresenceListSchema, PresenceParams, PresenceUpdateRequest, ReadPresenceParams } from "../../api/presence.js";
import { EXAMPLE_READ_ID, ReadIdParams } from "../../api/read-links.js";
import type { Presence, PresenceEntry } from "../../service/presence.js";
import type { ReadLinks } from "../../service/read-links.js";
import { json, noContent, problem, shared, withExample } from "../openapi-answers.js";

// docs/api.md, "Presence": who is at a document now, never stored (src/service/presence.ts).

const tags = ["presence"];
const iso = (ms: number) => new Date(ms).toISOString();
/** A presence list as GET …/presence answers it and an event stream's `event: presence` carries it. */
export const presenceJson = (clients: readonly PresenceEntry[]) => ({
  // In the order the GET's serializer writes (required fields first), so a frame holds its very bytes.
  clients: clients.map(({ clientId, displayName, role, state, updatedAt }) => ({ clientId, role, state, updatedAt: iso(updatedAt), ...(displayName !== undefined ? { displayName } : {}) })),
});

const exampleUpdate = { displayName: "Ada", state: { cursor: { line: 3, column: 14 } } };
const exampleList = {
  clients: [
    { clientId: CLIENT_ID, displayName: "Ada", role: "editor" as const, state: exampleUpdate.state, updatedAt: "2026-03-01T18:00:05.000Z" },
    { clientId: "c-77b20d4e", role: "viewer" as const, state: {}, updatedAt: "2026-03-01T18:00:02.000Z" },
  ],
};

const READ_PATH = `/api/v1/read/${EXAMPLE_READ_ID}/presence`;
const malformed = shared("InvalidRequest");
const noLink = problem(
  "unknown or revoked read id, or the document is deleted",
  { code: "not-found", detail: `no read link ${EXAMPLE_READ_ID}`, instance: READ_PATH, key: "no-link" },
  { code: "not-found", detail: `the document of read link ${EXAMPLE_READ_ID} is deleted`, instance: READ_PATH, key: "deleted" },
);
const tooLarge = (instance: string) =>
  problem(
    `the state is larger than ${PRESENCE_STATE_BYTES} bytes as JSON, or the body than the service accepts`,
    { code: "content-too-large", detail: `the presence state is 2100 bytes as JSON; at most ${PRESENCE_STATE_BYTES}`, instance },
  );
const tooMany = shared("PresenceTooMany");

const setDescription = (who: string) =>
  `Announces ${who}, or refreshes its entry: the entry shows until the client says goodbye (DELETE) or sends nothing for service.presence.ttl-seconds (30 s by default). ` +
  "Nothing is stored: no version, no history entry, no feed event; the entry lives in this instance's memory. `state` is opaque to the service (the client library seals it for encrypted documents).";

/** Presence: by the document's id (editors), and through its read-only link (viewers). */
export const presenceRoutes: FastifyPluginAsyncTypebox<{ presence: Presence; readLinks: ReadLinks }> = async (app, { presence, readLinks }) => {
  const documentPath = `${EXAMPLE_DOCUMENT_PATH}/presence/${CLIENT_ID}`;
  const readPath = `${READ_PATH}/${CLIENT_ID}`;
  // A read id names one link however its hex digits are cased (as in read-links.ts).
  app.addHook("preHandler", (request, _reply, done) => {
    const params = request.params as { readId?: string } | undefined;
    if (params?.readId) params.readId = params.readId.toLowerCase();
    done();
  });

  app.get(
    "/documents/:documentId/presence",
    {
      schema: {
        tags,
        operationId: "getPresence",
        summary: "Who is at the document now",
        description: "The clients present, editors and viewers, in the order they arrived; an entry not refreshed for service.presence.ttl-seconds is gone. 404 for an unknown or deleted document.",
        params: DocumentIdParams,
        response: { 200: json("the clients present now", PresenceListSchema, exampleList), 400: malformed, 404: shared("DocumentNotFound") },
      },
    },
    async (request) => presenceJson(await presence.list(request.params.documentId)),
  );

  app.put(
    "/documents/:documentId/presence/:clientId",
    {
      schema: {
        tags,
        operationId: "setPresence",
        summary: "Say that this client is here (as an editor), with its state",
        description: setDescription("the client as an `editor`") + " 404 for an unknown or deleted document.",
        params: PresenceParams,
        body: withExample(PresenceUpdateRequest, exampleUpdate),
        response: { 204: noContent("announced"), 400: malformed, 404: shared("DocumentNotFound"), 413: tooLarge(documentPath), 429: tooMany },
      },
    },
    async (request, reply) => {
      await presence.set(request.params.documentId, "editor", request.params.clientId, request.body);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    "/documents/:documentId/presence/:clientId",
    {
      schema: {
        tags,
        operationId: "deletePresence",
        summary: "Say goodbye: the client's editor entry is gone at once",
        description: "Removes the client's `editor` entry at once; 204 also when there was none (idempotent). 404 for an unknown or deleted document.",
        params: PresenceParams,
        response: { 204: noContent("the entry is gone (or was not there)"), 400: malformed, 404: shared("DocumentNotFound") },
      },
    },
    async (request, reply) => {
      await presence.remove(request.params.documentId, "editor", request.params.clientId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/read/:readId/presence",
    {
      schema: {
        tags,
        operationId: "readPresence",
        summary: "Who is at the document now, through its read-only link",
        description: "The same list as GET /documents/{documentId}/presence (it names no document). 404 for an unknown or revoked read id, and while the document is deleted.",
        params: ReadIdParams,
        response: { 200: json("the clients present now", PresenceListSchema, exampleList), 400: malformed, 404: noLink },
      },
    },
    async (request) => presenceJson(await readLinks.presence(request.params.readId)),
  );

  app.put(
    "/read/:readId/presence/:clientId",
    {
      schema: {
        tags,
        operationId: "setReadPresence",
        summary: "Say that this client is here as a viewer, through the read-only link",
        description:
          setDescription("the client as a `viewer`") +
          " A viewer's entry is its own: the same client id as an editor's makes a second entry, and never changes the editor's. 404 for an unknown or revoked read id, and while the document is deleted.",
        params: ReadPresenceParams,
        body: withExample(PresenceUpdateRequest, exampleUpdate),
        response: { 204: noContent("announced"), 400: malformed, 404: noLink, 413: tooLarge(readPath), 429: tooMany },
      },
    },
    async (request, reply) => {
      await readLinks.announce(request.params.readId, request.params.clientId, request.body);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    "/read/:readId/presence/:clientId",
    {
      schema: {
        tags,
        operationId: "deleteReadPresence",
        summary: "A viewer's goodbye, through the read-only link",
        description: "Removes the client's `viewer` entry at once (never an editor's); 204 also when there was none. 404 for an unknown or revoked read id, and while the document is deleted.",
        params: ReadPresenceParams,
        response: { 204: noContent("the entry is gone (or was not there)"), 400: malformed, 404: noLink },
      },
    },
    async (request, reply) => {
      await readLinks.leave(request.params.readId, request.params.clientId);
      return reply.code(204).send(null);
    },
  );
};
