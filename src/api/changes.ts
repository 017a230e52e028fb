import { Type, type Static } from "@sinclair/typebox";
import { LineOperationSchema } from "../core/line-operation.js";
import { ChangeTypeSchema } from "./documents.js";
import { Int32, Int64 } from "./scalars.js";

export const ChangeEventSchema = Type.Object(
  {
    version: Int64({ minimum: 1 }),
    changeType: ChangeTypeSchema,
    clientId: Type.Optional(Type.String({ description: "absent for changes without sender" })),
    displayName: Type.Optional(Type.String({ description: "unverified claim" })),
    title: Type.Optional(Type.String({ description: "only for RENAMED: the new title" })),
  },
  { title: "ChangeEvent" },
);

const currentVersion = Int64({ minimum: 1, description: "the document's version now" });
const events = Type.Array(ChangeEventSchema, { description: "the recorded versions after `since`, oldest first" });

export const ChangeFeedDiffSchema = Type.Object(
  {
    fromVersion: Int64({ minimum: 1, description: "base of the diff: the request's `since`" }),
    currentVersion,
    ops: Type.Array(LineOperationSchema, { description: "cumulative diff from fromVersion to currentVersion" }),
    events,
  },
  { title: "ChangeFeedDiff", description: "the changes since `since` as one line diff against it; no `content`" },
);

export const ChangeFeedContentSchema = Type.Object(
  {
    currentVersion,
    content: Type.String({ description: "the full text at currentVersion; the client replaces its state" }),
    events,
  },
  {
    title: "ChangeFeedContent",
    description:
      "the full text instead of a diff: when `since` is 0, greater than the current version, or compacted, or when the versions since it would compose more than 1 MiB of ops; no `fromVersion`, no `ops`",
  },
);

/**
 * The two shapes of a feed answer. TypeBox's Union writes `anyOf`; the two exclude each other (each
 * requires a field the other never sends), and `oneOf` says so to client generators. The schemas
 * declare only the fields each shape has, so that a generated client types `ops` as LineOperation[]
 * (a `not: {}` placeholder for the other shape's fields made some generators type it `unknown`); the
 * TypeScript type here still says that the other shape's fields are absent (`content?: never`).
 */
export const ChangeFeedSchema = Type.Unsafe<
  (Static<typeof ChangeFeedDiffSchema> & { content?: never }) | (Static<typeof ChangeFeedContentSchema> & { fromVersion?: never; ops?: never })
>({
  title: "ChangeFeed",
  description: "everything since `since`: a diff, or the full text where no exact diff exists",
  oneOf: [ChangeFeedDiffSchema, ChangeFeedContentSchema],
});

export const ChangesQuery = Type.Object({
  since: Int64({ description: "last seen version; 0 means nothing yet", examples: [2] }),
  wait: Type.Optional(Int32({ default: 25, description: "seconds to wait; clamped by service.feed.max-wait-seconds", examples: [25] })),
});

/** The query of a change feed's event stream: the long poll's `since`, without a wait (the stream waits for ever). */
export const EventsQuery = Type.Object({
  since: Int64({ description: "last seen version; 0 means nothing yet. A Last-Event-ID header takes its place", examples: [2] }),
});

/** What a reconnecting EventSource sends: the `id` of the last event it got, a version. */
export const EventsHeaders = Type.Object({
  "last-event-id": Type.Optional(Int64({ description: "the `id` of the last event received (its currentVersion): the stream resumes from it instead of `since`", examples: [3] })),
});
