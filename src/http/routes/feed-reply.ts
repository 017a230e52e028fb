import type { FastifyReply } from "fastify";
import { ChangeFeedSchema } from "../../api/changes.js";
import { examples } from "../../api/examples.js";
import { asError, type ChangeFeedView } from "../../service/change-feed.js";
import { JSON_MEDIA } from "../openapi-answers.js";
import { changeFeedJson } from "../ops-json.js";
import { sendJsonText } from "./json-reply.js";

/** The 200 of a change feed route: a diff or the full text, with an example of each. */
export const feedAnswer = {
  description: "what changed since `since`: a diff (ChangeFeedDiff) or, where no exact diff exists, the full text (ChangeFeedContent)",
  content: {
    [JSON_MEDIA]: {
      schema: ChangeFeedSchema,
      examples: {
        diff: { summary: "a diff from `since` (ChangeFeedDiff)", value: examples.feedDiff },
        content: { summary: "the full text instead (ChangeFeedContent): since=0, compacted or ahead", value: examples.feedContent },
      },
    },
  },
};

/**
 * Answers the long polls of one change feed route: 204 when a poll finds nothing within its wait,
 * else the answer as ChangeFeedSchema's JSON (changeFeedJson writes only the schema's fields, so no
 * id of the document can ride along). Each route makes its own, so that bytes made for one route
 * never answer another.
 */
export class FeedReplies {
  /** The serialized body of each answer still in use. */
  private readonly bodies = new WeakMap<ChangeFeedView, Buffer>();

  /**
   * Answers `reply` with what `next` resolves with (ChangeFeed.next or ReadLinks.changes). The
   * route's handler returns at once; the promise's settlement sends.
   */
  send(reply: FastifyReply, next: (signal: AbortSignal) => Promise<ChangeFeedView | undefined>): void {
    // A client that goes away ends its wait at once: no waiter and no timer stay behind.
    const abort = new AbortController();
    const onClose = () => abort.abort();
    // `on`, not `once`: "close" comes once, and `once` would hold a bound wrapper for the whole wait.
    reply.raw.on("close", onClose);
    const settled = (error: Error | undefined, answer: ChangeFeedView | undefined) => {
      reply.raw.off("close", onClose);
      // Called from a settlement, not returned to Fastify: what throws here is sent as the
      // handler's error would be, never left as an unhandled rejection.
      try {
        this.answer(reply, error, answer);
      } catch (thrown) {
        void reply.send(asError(thrown));
      }
    };
    next(abort.signal).then(
      (answer) => settled(undefined, answer),
      (error: unknown) => settled(asError(error), undefined),
    );
  }

  private answer(reply: FastifyReply, error: Error | undefined, answer: ChangeFeedView | undefined): void {
    if (error) return void reply.send(error);
    if (!answer) return void reply.code(204).send(null);
    // Waiters woken together (and polls that find the same head) share one answer object:
    // it is serialized once, and the same bytes are sent to each of them.
    let body = this.bodies.get(answer);
    if (!body) {
      body = Buffer.from(changeFeedJson(answer), "utf8");
      this.bodies.set(answer, body);
    }
    void sendJsonText(reply, body);
  }
}
