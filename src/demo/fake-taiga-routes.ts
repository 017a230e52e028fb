import type { IncomingHttpHeaders } from "node:http";
import { loginBody, projectBody, statusBody, ticketBody } from "./fake-taiga-bodies.js";
import type { FakeKind, FakeProject, FakeTaigaData, FakeTicket, FakeUser } from "./fake-taiga-data.js";

// The endpoints of Taiga's REST API that the proxy calls (docs/taiga.md), with Taiga's checks in
// Taiga's order and its error bodies: the fake's whole behaviour apart from HTTP itself.

/** A JSON answer. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One authenticated call to an endpoint. */
export interface Call {
  viewer: FakeUser | undefined;
  query: Record<string, string>;
  body: unknown;
  headers: IncomingHttpHeaders;
  url: URL;
}

const PAGE_SIZE = 30;
const NOT_AUTHENTICATED = { _error_message: "Authentication credentials were not provided.", _error_type: "taiga.base.exceptions.NotAuthenticated" };
const PERMISSION_DENIED = { _error_message: "You do not have permission to perform this action.", _error_type: "taiga.base.exceptions.PermissionDenied" };
const BEARER_REALM = { "WWW-Authenticate": 'Bearer realm="api"' };
const TYPE = (name: string) => `taiga.base.exceptions.${name}`;

/** The endpoint for `method` and `route` (the path below `/api/v1/`), or `undefined` (Taiga's HTML 404). */
export function findRoute(data: FakeTaigaData, loginTypes: readonly string[], method: string, route: string): ((call: Call) => Answer) | undefined {
  const kind: FakeKind | undefined = /^userstor/.test(route) ? "userstories" : /^task/.test(route) ? "tasks" : undefined;
  const id = /^(userstories|tasks)\/(\d+)$/.exec(route)?.[2];
  if (method === "POST" && route === "auth") return (call) => login(data, loginTypes, call);
  if (method === "GET" && route === "projects") return (call) => listProjects(data, call);
  if (method === "GET" && route === "projects/by_slug") return (call) => projectBySlug(data, call);
  if (method === "GET" && kind && route === `${kind}/by_ref`) return (call) => byRef(data, kind, call);
  if (method === "POST" && kind && route === kind) return (call) => create(data, kind, call);
  if (method === "PATCH" && kind && id !== undefined) return (call) => patch(data, kind, Number(id), call);
  if (method === "GET" && (route === "userstory-statuses" || route === "task-statuses")) return (call) => statuses(data, kind!, call);
  return undefined;
}

/** Taiga authenticates every request first: only a `Bearer` header counts, and a bad one fails even on login. */
export function authenticate(data: FakeTaigaData, header: string | undefined): { viewer: FakeUser | undefined } | Answer {
  const parts = (header ?? "").split(/\s+/).filter(Boolean);
  if (parts[0] !== "Bearer") return { viewer: undefined };
  const unauthorized = (body: unknown): Answer => ({ status: 401, body, headers: BEARER_REALM });
  if (parts.length !== 2) return unauthorized({ detail: "Authorization header must contain two space-delimited values", code: "bad_authorization_header" });
  const user = data.users.find((candidate) => candidate.id === data.tokens.get(parts[1]!));
  if (!user) {
    const messages = [{ token_class: "AccessToken", token_type: "access", message: "Token is invalid or expired" }];
    return unauthorized({ detail: "Given token not valid for any token type", code: "token_not_valid", messages });
  }
  if (!user.active) return unauthorized({ detail: "User is inactive", code: "user_inactive" });
  return { viewer: user };
}

function login(data: FakeTaigaData, loginTypes: readonly string[], { body }: Call): Answer {
  const fields = asRecord(body);
  if (typeof fields.type !== "string" || !loginTypes.includes(fields.type.toLowerCase())) {
    return { status: 400, body: { _error_message: "invalid login type", _error_type: TYPE("BadRequest") } };
  }
  const missing = ["username", "password"].filter((field) => typeof fields[field] !== "string" || fields[field] === "");
  if (missing.length > 0) return { status: 400, body: Object.fromEntries(missing.map((field) => [field, ["This field is required."]])) };
  const name = String(fields.username).toLowerCase();
  const matches = data.users.filter((user) => user.username.toLowerCase() === name || user.email.toLowerCase() === name);
  const user = matches.length > 1 ? matches.find((candidate) => candidate.username === fields.username) : matches[0];
  if (!user || user.password !== fields.password || !user.active) {
    return { status: 401, body: { detail: "No active account found with the given credentials", code: "invalid_credentials" }, headers: BEARER_REALM };
  }
  return { status: 200, body: loginBody(user, data.issueToken(user)) };
}

function listProjects(data: FakeTaigaData, call: Call): Answer {
  const member = call.query.member;
  if (member !== undefined && !/^-?\d+$/.test(member)) {
    return { status: 400, body: { _error_message: "Error in filter params types.", _error_type: TYPE("BadRequest") } };
  }
  const rows = data.projects
    .filter((project) => canView(project, call.viewer))
    .filter((project) => member === undefined || project.members.includes(Number(member)))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id)
    .map((project) => projectBody(data, project, call.viewer, false));
  return paginate(rows, call);
}

function projectBySlug(data: FakeTaigaData, call: Call): Answer {
  const project = data.projects.find((candidate) => candidate.slug === call.query.slug && canView(candidate, call.viewer));
  if (!project) return call.viewer ? { status: 404, body: { _error_message: "" } } : { status: 401, body: NOT_AUTHENTICATED, headers: BEARER_REALM };
  return { status: 200, body: projectBody(data, project, call.viewer, true) };
}

function byRef(data: FakeTaigaData, kind: FakeKind, call: Call): Answer {
  const { ref, project: projectId, project__slug: slug } = call.query;
  if (ref === undefined) return { status: 400, body: "ref param is needed" };
  if (projectId === undefined && slug === undefined) return { status: 400, body: "project or project__slug param is needed" };
  if ((projectId !== undefined && !/^\d+$/.test(projectId)) || !/^\d+$/.test(ref)) return { status: 404, body: { _error_message: "" } };
  const project = data.projects.find((candidate) => (projectId !== undefined ? candidate.id === Number(projectId) : candidate.slug === slug));
  const ticket = data.tickets.find((candidate) => candidate.kind === kind && candidate.project === project?.id && candidate.ref === Number(ref));
  if (!project || !ticket) return { status: 404, body: { _error_message: `No ${kind === "userstories" ? "UserStory" : "Task"} matches the given query.` } };
  if (!canView(project, call.viewer)) return call.viewer ? { status: 403, body: PERMISSION_DENIED } : { status: 401, body: NOT_AUTHENTICATED, headers: BEARER_REALM };
  return { status: 200, body: ticketBody(data, ticket, true) };
}

function create(data: FakeTaigaData, kind: FakeKind, call: Call): Answer {
  const fields = asRecord(call.body);
  const errors: Record<string, string[]> = {};
  const project = relation(fields, "project", errors, (id) => data.projects.find((candidate) => candidate.id === id));
  const status = relation(fields, "status", errors, (id) => data.findStatus(id));
  const story = kind === "tasks" ? relation(fields, "user_story", errors, (id) => findTicket(data, "userstories", id)) : undefined;
  if (typeof fields.subject !== "string" || fields.subject.trim() === "") errors.subject = ["This field is required."];
  else if (fields.subject.length > 500) errors.subject = [`Ensure this value has at most 500 characters (it has ${fields.subject.length}).`];
  if (Object.keys(errors).length > 0 || !project) return { status: 400, body: errors };
  if (!call.viewer) return { status: 401, body: NOT_AUTHENTICATED, headers: BEARER_REALM };
  if (!project.members.includes(call.viewer.id)) return { status: 403, body: PERMISSION_DENIED };
  const what = kind === "userstories" ? "user story" : "task";
  if (status && status.project !== project.id) return foreignRelation(kind, `You don't have permissions to set this status to this ${what}.`);
  if (story && story.project !== project.id) return foreignRelation(kind, "You don't have permissions to set this user story to this task.");
  const ticket = data.createTicket(kind, project, { subject: String(fields.subject), status: status?.id, userStory: story?.id, owner: call.viewer.id });
  return { status: 201, body: ticketBody(data, ticket, false) };
}

function patch(data: FakeTaigaData, kind: FakeKind, id: number, call: Call): Answer {
  const ticket = findTicket(data, kind, id);
  const project = data.projects.find((candidate) => candidate.id === ticket?.project);
  if (!call.viewer) return { status: 401, body: NOT_AUTHENTICATED, headers: BEARER_REALM };
  if (!ticket || !project || !project.members.includes(call.viewer.id)) return { status: 403, body: PERMISSION_DENIED };
  const fields = asRecord(call.body);
  const errors: Record<string, string[]> = {};
  const status = relation(fields, "status", errors, (statusId) => data.findStatus(statusId), false);
  if ("version" in fields && fields.version !== null && !Number.isInteger(Number(fields.version))) errors.version = ["Enter a whole number."];
  if ("subject" in fields && (typeof fields.subject !== "string" || fields.subject.trim() === "")) errors.subject = ["This field is required."];
  if (Object.keys(errors).length > 0) return { status: 400, body: errors };
  const invalidVersion: Answer = { status: 400, body: { version: "The version parameter is not valid" } };
  if (fields.version === undefined || fields.version === null) return invalidVersion;
  const version = Number(fields.version);
  if (version < 0 || version > ticket.version) return invalidVersion;
  const changing = Object.keys(fields).filter((field) => field !== "version");
  const changedSince = ticket.changes.slice(Math.max(version - 1, 0)).flat();
  if (changing.some((field) => changedSince.includes(field))) return { status: 400, body: { version: "The version doesn't match with the current one" } };
  const what = kind === "userstories" ? "user story" : "task";
  if (status && status.project !== project.id) return foreignRelation(kind, `You don't have permissions to set this status to this ${what}.`);
  data.editTicket(ticket, { status: status?.id, subject: typeof fields.subject === "string" ? fields.subject : undefined });
  return { status: 200, body: ticketBody(data, ticket, false), headers: { "Taiga-Info-Order-Updated": "{}" } };
}

function statuses(data: FakeTaigaData, kind: FakeKind, call: Call): Answer {
  const projectId = call.query.project;
  if (projectId !== undefined && !/^\d+$/.test(projectId)) {
    return { status: 400, body: { _error_message: "'project' must be an integer value.", _error_type: TYPE("BadRequest") } };
  }
  const rows = data.projects
    .filter((project) => canView(project, call.viewer) && (projectId === undefined || project.id === Number(projectId)))
    .flatMap((project) => project.statuses[kind])
    .sort((a, b) => a.project - b.project || a.order - b.order || a.name.localeCompare(b.name))
    .map((status) => statusBody(kind, status));
  return paginate(rows, call);
}

/** A primary-key field as DRF's PrimaryKeyRelatedField checks it; records the error it finds. */
function relation<T>(fields: Record<string, unknown>, field: string, errors: Record<string, string[]>, find: (id: number) => T | undefined, required = field === "project"): T | undefined {
  const value = fields[field];
  if (value === undefined || value === null || value === "") {
    if (required) errors[field] = ["This field is required."];
    return undefined;
  }
  if (typeof value !== "number" && !(typeof value === "string" && /^\d+$/.test(value))) {
    errors[field] = [`Incorrect type. Expected pk value, received ${typeof value === "string" ? "str" : typeof value}.`];
    return undefined;
  }
  const found = find(Number(value));
  if (found === undefined) errors[field] = [`Invalid pk '${String(value)}' - object does not exist.`];
  return found;
}

/** A relation to another project: user stories answer 403 PermissionDenied, tasks 400 WrongArguments. */
function foreignRelation(kind: FakeKind, message: string): Answer {
  return kind === "userstories"
    ? { status: 403, body: { _error_message: message, _error_type: TYPE("PermissionDenied") } }
    : { status: 400, body: { _error_message: message, _error_type: TYPE("WrongArguments") } };
}

function findTicket(data: FakeTaigaData, kind: FakeKind, id: number): FakeTicket | undefined {
  return data.tickets.find((candidate) => candidate.kind === kind && candidate.id === id);
}

function canView(project: FakeProject, viewer: FakeUser | undefined): boolean {
  return !project.isPrivate || (viewer !== undefined && project.members.includes(viewer.id));
}

/** Taiga's PaginationMixin: 30 per page unless `x-disable-pagination` is present (any value). */
function paginate(rows: unknown[], call: Call): Answer {
  if ("x-disable-pagination" in call.headers) return { status: 200, body: rows };
  const size = Math.min(Number(call.query.page_size) > 0 ? Number(call.query.page_size) : PAGE_SIZE, 1000);
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const raw = call.query.page ?? "1";
  const page = raw === "last" ? pages : /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(page >= 1 && page <= pages)) return { status: 404, body: { _error_message: "Page is not 'last', nor can it be converted to an int." } };
  const link = (target: number) => {
    const url = new URL(call.url);
    url.host = call.headers.host ?? url.host;
    url.searchParams.set("page", String(target));
    return url.toString();
  };
  const headers: Record<string, string> = {
    "x-pagination-count": String(rows.length),
    "x-paginated": "true",
    "x-paginated-by": String(size),
    "x-pagination-current": String(page),
  };
  if (page < pages) headers["X-Pagination-Next"] = link(page + 1);
  if (page > 1) headers["X-Pagination-Prev"] = link(page - 1);
  return { status: 200, body: rows.slice((page - 1) * size, page * size), headers };
}

function asRecord(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
