import { Type } from "@sinclair/typebox";
import { Int64 } from "../../api/scalars.js";
import { ProblemDetailSchema } from "../problem-details.js";

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
    ref: Int64(),
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
// decided earlier, in the plugin's onRequest hook, so that they come before every body check.
const TokenHeaders = Type.Object({
  "x-tracker-token": Type.String({
    minLength: 1,
    maxLength: MAX_TRACKER_TOKEN,
    pattern: TRACKER_TOKEN_PATTERN.source,
    description: "the bare tracker token from POST /tracker/auth, without a `Bearer ` prefix",
  }),
});

const SlugQuery = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 255, description: "project slug from the keyword `&tracker.<slug>`; refs are unique only per project" }),
});

const RefParams = Type.Object({
  ref: Int64({ minimum: 1, description: "the bare ticket number (for `#US-<n>` or `#T-<n>` just `<n>`); the path carries the type" }),
});

const MemberQuery = Type.Object({ member: Int64({ description: "the user id from the session" }) });

const problem = { content: { "application/problem+json": { schema: ProblemDetailSchema } } };
const problems = {
  400: problem,
  502: problem,
  503: problem,
  // Other tracker 4xx answers (403, 429, …) are passed on with their status.
  "4xx": problem,
};
const tokenProblems = { ...problems, 401: problem };
const lookupProblems = { ...tokenProblems, 404: problem };

const tags = ["tracker"];

export const authRoute = {
  tags,
  summary: "Log in to the tracker",
  description: "Passes the credentials to the tracker with the configured login type; the password is never stored or logged.",
  body: TrackerAuthRequest,
  response: { 200: TrackerSession, ...problems },
};

export const projectsRoute = {
  tags,
  summary: "List the tracker projects of a member",
  headers: TokenHeaders,
  querystring: MemberQuery,
  response: { 200: Type.Array(TrackerProject), ...tokenProblems },
};

export const createStoryRoute = {
  tags,
  summary: "Create a user story",
  headers: TokenHeaders,
  body: TrackerStoryCreateRequest,
  response: { 201: TrackerTicket, ...tokenProblems },
};

export const createTaskRoute = {
  tags,
  summary: "Create a task inside a user story",
  description: "Tasks always belong to a story; tasks without a story are deliberately not offered.",
  headers: TokenHeaders,
  body: TrackerTaskCreateRequest,
  response: { 201: TrackerTicket, ...tokenProblems },
};

const ticketRead = (summary: string) => ({
  tags,
  summary,
  headers: TokenHeaders,
  params: RefParams,
  querystring: SlugQuery,
  response: { 200: TrackerTicketDetail, ...lookupProblems },
});

const statusWrite = (summary: string) => ({
  tags,
  summary,
  description: "`version` is the last read version; when the ticket changed meanwhile the tracker's optimistic lock rejects the write (400).",
  headers: TokenHeaders,
  params: RefParams,
  querystring: SlugQuery,
  body: TrackerStatusPatch,
  response: { 200: TrackerTicketDetail, ...lookupProblems },
});

const statusList = (summary: string) => ({
  tags,
  summary,
  headers: TokenHeaders,
  querystring: SlugQuery,
  response: { 200: Type.Array(TrackerStatus), ...lookupProblems },
});

export const readStoryRoute = ticketRead("Read a user story by project slug and ref");
export const readTaskRoute = ticketRead("Read a task by project slug and ref");
export const writeStoryStatusRoute = statusWrite("Move a user story to another status column");
export const writeTaskStatusRoute = statusWrite("Move a task to another status column");
export const storyStatusesRoute = statusList("List the user story statuses of a project");
export const taskStatusesRoute = statusList("List the task statuses of a project");
