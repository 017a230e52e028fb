import { Type } from "@sinclair/typebox";
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

export const ChangeFeedSchema = Type.Object(
  {
    fromVersion: Type.Optional(Int64({ minimum: 1, description: "base of the supplied diff; absent when content is supplied" })),
    currentVersion: Int64({ minimum: 1 }),
    ops: Type.Optional(Type.Array(LineOperationSchema, { description: "cumulative diff from fromVersion to currentVersion" })),
    content: Type.Optional(Type.String({ description: "full text instead of a diff" })),
    events: Type.Array(ChangeEventSchema),
  },
  { title: "ChangeFeed" },
);

export const ChangesQuery = Type.Object({
  since: Int64({ description: "last seen version; 0 means nothing yet" }),
  wait: Type.Optional(Int32({ default: 25, description: "seconds to wait; clamped by service.feed.max-wait-seconds" })),
});
