import { Type } from "@sinclair/typebox";
import { ProblemDetailSchema } from "../../api/problem.js";
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

/** The route schemas of the tracker proxy: the wire shapes of src/api/tracker.ts plus their OpenAPI answers. */
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
  operationId: "trackerLogin",
  summary: "Log in to the tracker",
  description: "Passes the credentials to the tracker with the configured login type; the password is never stored or logged.",
  body: TrackerAuthRequest,
  response: { 200: TrackerSession, ...problems },
};

export const projectsRoute = {
  tags,
  operationId: "listTrackerProjects",
  summary: "List the tracker projects of a member",
  headers: TokenHeaders,
  querystring: MemberQuery,
  response: { 200: Type.Array(TrackerProject), ...tokenProblems },
};

export const createStoryRoute = {
  tags,
  operationId: "createUserStory",
  summary: "Create a user story",
  headers: TokenHeaders,
  body: TrackerStoryCreateRequest,
  response: { 201: TrackerTicket, ...tokenProblems },
};

export const createTaskRoute = {
  tags,
  operationId: "createTask",
  summary: "Create a task inside a user story",
  description: "Tasks always belong to a story; tasks without a story are deliberately not offered.",
  headers: TokenHeaders,
  body: TrackerTaskCreateRequest,
  response: { 201: TrackerTicket, ...tokenProblems },
};

const ticketRead = (operationId: string, summary: string) => ({
  tags,
  operationId,
  summary,
  headers: TokenHeaders,
  params: RefParams,
  querystring: SlugQuery,
  response: { 200: TrackerTicketDetail, ...lookupProblems },
});

const statusWrite = (operationId: string, summary: string) => ({
  tags,
  operationId,
  summary,
  description: "`version` is the last read version; when the ticket changed meanwhile the tracker's optimistic lock rejects the write (400).",
  headers: TokenHeaders,
  params: RefParams,
  querystring: SlugQuery,
  body: TrackerStatusPatch,
  response: { 200: TrackerTicketDetail, ...lookupProblems },
});

const statusList = (operationId: string, summary: string) => ({
  tags,
  operationId,
  summary,
  headers: TokenHeaders,
  querystring: SlugQuery,
  response: { 200: Type.Array(TrackerStatus), ...lookupProblems },
});

export const readStoryRoute = ticketRead("getUserStory", "Read a user story by project slug and ref");
export const readTaskRoute = ticketRead("getTask", "Read a task by project slug and ref");
export const writeStoryStatusRoute = statusWrite("moveUserStory", "Move a user story to another status column");
export const writeTaskStatusRoute = statusWrite("moveTask", "Move a task to another status column");
export const storyStatusesRoute = statusList("listUserStoryStatuses", "List the user story statuses of a project");
export const taskStatusesRoute = statusList("listTaskStatuses", "List the task statuses of a project");
