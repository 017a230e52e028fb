import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { EventsHeaders, EventsQuery } from "../../api/changes.js";
import { DocumentIdParams } from "../../api/documents.js";
import { CLIENT_ID, examples } from "../../api/examples.js";
import { EXAMPLE_READ_ID, ReadIdParams } from "../../api/read-links.js";
import type { ChangeFeed } from "../../service/change-feed.js";
import type { Presence } from "../../service/presence.js";
import type { ReadLinks } from "../../service/read-links.js";
import { noContent, problem, shared } from "../openapi-answers.js";
import { WAITS } from "../wait-limit.js";
import { EVENT_STREAM_MEDIA, type EventStreams } from "./event-stream.js";

// docs/api.md, "The event stream": the change feeds as Server-Sent Events, beside the long polls.

const tags = ["documents"];

const exampleStream =
  `event: change\nid: ${examples.feedDiff.currentVersion}\ndata: ${JSON.stringify(examples.feedDiff)}\n\n` +
  ": keep-alive\n\n" +
  `event: change\nid: ${examples.feedContent.currentVersion}\ndata: ${JSON.stringify(examples.feedContent)}\n\n` +
  `event: presence\ndata: ${JSON.stringify({ clients: [{ clientId: CLIENT_ID, displayName: "Ada", role: "editor", state: { cursor: { line: 3, column: 14 } }, updatedAt: "2026-03-01T18:00:05.000Z" }] })}\n\n`;

/** The 200 of an events route: the stream, with an example. */
const streamAnswer = {
  description:
    "Server-Sent Events, open until the client or the service ends them: an `event: change` per answer the long poll would give (`id:` its currentVersion, `data:` its ChangeFeed JSON on one line), " +
    "an `event: presence` (no `id:`; `data:` the PresenceList JSON of GET …/presence on one line) when the stream opens on a document someone is at and whenever the list changes, at most 10 a second, " +
    "`: keep-alive` comments while nothing changes",
  content: { [EVENT_STREAM_MEDIA]: { schema: Type.String({ description: "text/event-stream frames" }), example: exampleStream } },
};

const shutting = noContent("this instance is shutting down: ask again (another instance, or this one restarted, streams)");

/** The streams of the change feeds: a document's by its id, and through a read-only link. */
export const eventRoutes: FastifyPluginAsyncTypebox<{ feed: ChangeFeed; readLinks: ReadLinks; presence: Presence; documentStreams: EventStreams; readStreams: EventStreams }> = async (
  app,
  { feed, readLinks, presence, documentStreams, readStreams },
) => {
  app.get(
    "/documents/:documentId/events",
    {
      // A stream is held like a long poll: counted against service.rate-limit.waits-per-address.
      config: WAITS,
      schema: {
        tags,
        operationId: "streamChanges",
        summary: "The change feed as a stream of Server-Sent Events",
        description:
          "The long poll of GET /documents/{documentId}/changes in a loop on one connection: every answer it would give from `since` (or Last-Event-ID) on, as an `event: change` whose `id` is the answer's currentVersion, then the next from there. " +
          "A `: keep-alive` comment every 15 s while nothing changes. A deleted document delivers DELETED and goes on (a restore delivers RESTORED). 404 before any stream byte for a UUID that never existed.",
        params: DocumentIdParams,
        querystring: EventsQuery,
        headers: EventsHeaders,
        response: { 200: streamAnswer, 204: shutting, 404: shared("DocumentNeverExisted") },
      },
    },
    (request, reply) => {
      const since = request.headers["last-event-id"] ?? request.query.since;
      const { documentId } = request.params;
      documentStreams.serve(
        request,
        reply,
        since,
        (from, waitSeconds, signal) => feed.next(documentId, from, { waitSeconds, signal }),
        (listener) => presence.watch(documentId, listener),
      );
    },
  );

  app.get(
    "/read/:readId/events",
    {
      config: WAITS,
      schema: {
        tags,
        operationId: "readEvents",
        summary: "A document's change feed as Server-Sent Events, through its read-only link",
        description:
          "The same stream as GET /documents/{documentId}/events, event for event, never with the document's id. 404 before any stream byte for an unknown or revoked read id; " +
          "a link revoked or rotated while the stream is open ends it at the next change or keep-alive.",
        params: ReadIdParams,
        querystring: EventsQuery,
        headers: EventsHeaders,
        response: {
          200: streamAnswer,
          204: shutting,
          404: problem("unknown or revoked read id", { code: "not-found", detail: `no read link ${EXAMPLE_READ_ID}`, instance: `/api/v1/read/${EXAMPLE_READ_ID}/events` }),
        },
      },
    },
    (request, reply) => {
      const since = request.headers["last-event-id"] ?? request.query.since;
      readStreams.serve(
        request,
        reply,
        since,
        (from, waitSeconds, signal) => readLinks.changes(request.params.readId, from, waitSeconds, signal),
        (listener) => readLinks.watchPresence(request.params.readId, listener),
      );
    },
  );
};
