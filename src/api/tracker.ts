import { Type } from "@sinclair/typebox";
import { Int64 } from "./scalars.js";

/** The longest `X-Tracker-Token` accepted (docs/interface.md#limits). */
export const MAX_TRACKER_TOKEN = 512;
/** A bare token is printable ASCII without spaces (Taiga's JWTs are base64url and dots). */
export const TRACKER_TOKEN_PATTERN = /^[\x21-\x7e]+$/;

export const TrackerAuthRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 255 }),
    password: Type.String({ minLength: 1, maxLength: 255, description: "only passed through, never stored or logged" }),
  },
  { title: "TrackerAuthRequest" },
);

export const TrackerSession = Type.Object(
  {
    authToken: Type.String({ description: "bearer token of the tracker session; belongs to the browser, the service remembers nothing" }),
    userId: Int64({ description: "tracker user id; the `member` filter of the project list" }),
    username: Type.String(),
    fullName: Type.Optional(Type.String()),
  },
  { title: "TrackerSession" },
);

export const TrackerProject = Type.Object(
  {
    id: Int64(),
    name: Type.String(),
    slug: Type.String({ description: "also the value of the keyword `&tracker.<slug>` in the notation text" }),
  },
  { title: "TrackerProject" },
);

export const TrackerStoryCreateRequest = Type.Object(
  {
    project: Int64({ description: "project id from the project list" }),
    subject: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { title: "TrackerStoryCreateRequest" },
);

export const TrackerTaskCreateRequest = Type.Object(
  {
    project: Int64(),
    subject: Type.String({ minLength: 1, maxLength: 500 }),
    userStory: Int64({ description: "id (not ref) of the story the task belongs to" }),
  },
  { title: "TrackerTaskCreateRequest" },
);

export const TrackerTicket = Type.Object(
  {
    id: Int64(),
    ref: Int64({
      minimum: 1,
      description:
        "project-wide running number over all ticket types. The client writes `#US-<ref>` (story) or `#T-<ref>` (task) onto the node line; these prefixes are the client's, the tracker shows only `#<ref>`",
    }),
    subject: Type.String(),
  },
  { title: "TrackerTicket" },
);

export const TrackerTicketDetail = Type.Object(
  {
    id: Int64(),
    ref: Int64({ minimum: 1 }),
    subject: Type.String(),
    status: Type.Optional(
      Type.String({ description: "name of the tracker workflow status (the tracker's `status_extra_info.name`); absent if the tracker gives no name" }),
    ),
    statusClosed: Type.Optional(Type.Boolean({ description: "the tracker's own statement whether the status counts as done" })),
    assignee: Type.Optional(
      Type.String({ description: "display name (the tracker's `assigned_to_extra_info.full_name_display`); absent when nobody is assigned" }),
    ),
    version: Type.Optional(Int64({ description: "the tracker's optimistic lock; sent back unchanged on writing" })),
  },
  { title: "TrackerTicketDetail" },
);

export const TrackerStatus = Type.Object(
  {
    id: Int64(),
    name: Type.String({ description: "freely named, differs per project" }),
    closed: Type.Optional(Type.Boolean()),
  },
  { title: "TrackerStatus" },
);

export const TrackerStatusPatch = Type.Object(
  {
    status: Int64({ description: "id of the target column (not its name)" }),
    version: Int64({ description: "the last read version of the ticket" }),
  },
  { title: "TrackerStatusPatch" },
);

// Documented for OpenAPI and checked again by the schema; the 401 (missing) and 400 (too long) are
// decided earlier, in the tracker routes' onRequest hook, so that they come before every body check.
export const TokenHeaders = Type.Object({
  "x-tracker-token": Type.String({
    minLength: 1,
    maxLength: MAX_TRACKER_TOKEN,
    pattern: TRACKER_TOKEN_PATTERN.source,
    description: "the bare tracker token from POST /tracker/auth, without a `Bearer ` prefix",
  }),
});

export const SlugQuery = Type.Object({
  slug: Type.String({
    minLength: 1,
    maxLength: 255,
    description: "project slug from the keyword `&tracker.<slug>`; refs are unique only per project",
    examples: ["outline-editor"],
  }),
});

export const RefParams = Type.Object({
  ref: Int64({ minimum: 1, description: "the bare ticket number (for `#US-<n>` or `#T-<n>` just `<n>`); the path carries the type", examples: [12] }),
});

export const MemberQuery = Type.Object({ member: Int64({ description: "the user id from the session", examples: [7] }) });
