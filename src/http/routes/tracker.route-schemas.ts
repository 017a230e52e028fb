import { Type } from "@sinclair/typebox";
import { examples } from "../../api/examples.js";
import {
  MemberQuery,
  RefParams,
  SlugQuery,
  TokenHeaders,
  TrackerAuthRequest,
  TrackerProject,
  TrackerSession,
  TrackerStatus,
  TrackerStatusPatch,
  TrackerStoryCreateRequest,
  TrackerTaskCreateRequest,
  TrackerTicket,
  TrackerTicketDetail,
} from "../../api/tracker.js";
import { json, problem, shared, withExample } from "../openapi-answers.js";

/** The route schemas of the tracker proxy: the wire shapes of src/api/tracker.ts plus their OpenAPI answers. */
const problems = {
  400: shared("TrackerBadRequest"),
  // Other tracker 4xx answers (403, 404, …) are passed on with their status.
  "4xx": shared("TrackerRejected"),
  429: shared("TrackerTooManyRequests"),
  502: shared("TrackerUnavailable"),
  503: shared("TrackerNotConfigured"),
};
const tokenProblems = { ...problems, 401: shared("TrackerTokenRequired") };
const lookupProblems = (what: string) => ({
  ...tokenProblems,
  404: problem(`the tracker knows no ${what} (its 404 passed on)`, {
    code: "tracker-rejected",
    status: 404,
    detail: "No UserStory matches the given query.",
    instance: "/api/v1/tracker/userstories/12",
  }),
});

const tags = ["tracker"];

/**
 * A tracker route that carries the token: its tag, names, description and the token, which the
 * route schema validates as a header and the document declares as the `trackerToken` scheme.
 */
function route<T extends object>(operationId: string, summary: string, description: string, rest: T) {
  return { tags, operationId, summary, description, security: [{ trackerToken: [] }], headers: TokenHeaders, ...rest };
}

export const authRoute = {
  tags,
  operationId: "trackerLogin",
  summary: "Log in to the tracker",
  description:
    "Passes the credentials to the tracker with the configured login type and answers its session; the token belongs to the browser, which sends it as `X-Tracker-Token`. " +
    "The password is never stored or logged.",
  security: [],
  body: withExample(TrackerAuthRequest, examples.trackerLogin),
  response: {
    200: json("the tracker session", TrackerSession, examples.trackerSession),
    ...problems,
    400: problem(
      "the tracker rejected the credentials (its 400 or 401), or the request is invalid",
      { code: "tracker-credentials-rejected", detail: "the tracker rejected the login: Username or password does not matches user.", instance: "/api/v1/tracker/auth" },
      { code: "invalid-request", detail: "body.username: must NOT have fewer than 1 characters", instance: "/api/v1/tracker/auth" },
    ),
  },
};

export const projectsRoute = route(
  "listTrackerProjects",
  "List the tracker projects of a member",
  "The projects the user of the session is a member of (`member` is the session's `userId`); a project's slug is the value of `&tracker.<slug>` in the text.",
  { querystring: MemberQuery, response: { 200: json("the projects", Type.Array(TrackerProject), examples.trackerProjects), ...tokenProblems } },
);

export const createStoryRoute = route("createUserStory", "Create a user story", "Creates a user story in a project; the client writes `#US-<ref>` onto the node line.", {
  body: withExample(TrackerStoryCreateRequest, examples.storyCreate),
  response: { 201: json("the new user story", TrackerTicket, examples.story), ...tokenProblems },
});

export const createTaskRoute = route(
  "createTask",
  "Create a task inside a user story",
  "Creates a task in a user story (`userStory` is the story's id, not its ref); tasks always belong to a story, tasks without one are deliberately not offered. The client writes `#T-<ref>`.",
  { body: withExample(TrackerTaskCreateRequest, examples.taskCreate), response: { 201: json("the new task", TrackerTicket, examples.task), ...tokenProblems } },
);

const ticketRead = (operationId: string, kind: string) =>
  route(
    operationId,
    `Read a ${kind} by project slug and ref`,
    `The ${kind}'s subject, workflow status, assignee and version, looked up by the project's slug and the ${kind}'s ref. Only reads.`,
    { params: RefParams, querystring: SlugQuery, response: { 200: json(`the ${kind}`, TrackerTicketDetail, examples.ticketDetail), ...lookupProblems(`such project or ${kind}`) } },
  );

const statusWrite = (operationId: string, kind: string) =>
  route(
    operationId,
    `Move a ${kind} to another status column`,
    "Writes the status chosen by the user (a column id from the status list). `version` is the last read version: when the ticket changed meanwhile, " +
      "the tracker's optimistic lock rejects the write (400) and nothing is overwritten.",
    {
      params: RefParams,
      querystring: SlugQuery,
      body: withExample(TrackerStatusPatch, examples.statusPatch),
      response: { 200: json(`the ${kind} in its new state`, TrackerTicketDetail, examples.movedTicket), ...lookupProblems(`such project or ${kind}`) },
    },
  );

const statusList = (operationId: string, kind: string) =>
  route(
    operationId,
    `List the ${kind} statuses of a project`,
    `The workflow columns of ${kind}s in a project, named freely per project; a status write takes a column's id.`,
    { querystring: SlugQuery, response: { 200: json("the status columns", Type.Array(TrackerStatus), examples.statuses), ...lookupProblems("such project") } },
  );

export const readStoryRoute = ticketRead("getUserStory", "user story");
export const readTaskRoute = ticketRead("getTask", "task");
export const writeStoryStatusRoute = statusWrite("moveUserStory", "user story");
export const writeTaskStatusRoute = statusWrite("moveTask", "task");
export const storyStatusesRoute = statusList("listUserStoryStatuses", "user story");
export const taskStatusesRoute = statusList("listTaskStatuses", "task");
