import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeTaigaData, type FakeKind, type FakeProject, type FakeTicket, type FakeUser } from "./fake-taiga-data.js";

export type { FakeKind, FakeProject, FakeStatus, FakeTicket, FakeUser } from "./fake-taiga-data.js";

/** One request as the fake received it. */
export interface RecordedRequest {
  method: string;
  /** The path without the query, e.g. `/api/v1/projects/by_slug`. */
  path: string;
  /** The raw query string without `?`, to check the encoding. */
  search: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The client's port: equal ports mean one kept-alive connection. */
  remotePort: number | undefined;
}

/** A canned JSON answer. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What the next responses do instead of answering normally: never answer, Taiga's 500, an HTML page, a 429, or a canned answer. */
export type Interference = "hang" | "server-error" | "html" | { throttleSeconds: number } | Answer;

const PAGE_SIZE = 30;
const MAX_BODY = 1024 * 1024;
const NOT_AUTHENTICATED = { _error_message: "Authentication credentials were not provided.", _error_type: "taiga.base.exceptions.NotAuthenticated" };
const PERMISSION_DENIED = { _error_message: "You do not have permission to perform this action.", _error_type: "taiga.base.exceptions.PermissionDenied" };
const BEARER_REALM = { "WWW-Authenticate": 'Bearer realm="api"' };
const HTML_404 =
  '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <title>Not Found</title>\n</head>\n<body>\n  <h1>Not Found</h1><p>The requested resource was not found on this server.</p>\n</body>\n</html>\n';
const TYPE = (name: string) => `taiga.base.exceptions.${name}`;

/**
 * A faithful fake of Taiga's REST API (docs/taiga.md) on 127.0.0.1: the allow-listed calls
 * with Taiga's bodies, error bodies, pagination, shared refs and optimistic locking. It records every
 * request, and tests can make the next responses hang, fail, turn to HTML or throttle.
 */
export class FakeTaiga extends FakeTaigaData {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #loginTypes: string[];
  readonly #interferences: Interference[] = [];

  private constructor(server: Server, loginTypes: string[]) {
    super();
    this.#server = server;
    this.#loginTypes = loginTypes;
  }

  /** Starts on a free port; `loginTypes` are the registered auth plugins (default `normal` and `ldap`). */
  static async start(options: { loginTypes?: string[] } = {}): Promise<FakeTaiga> {
    const server = createServer();
    const fake = new FakeTaiga(server, options.loginTypes ?? ["normal", "ldap"]);
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      fake.#handle(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/v1`;
  }

  /** The next `count` requests are answered with `interference` instead. */
  interfere(interference: Interference, count = 1): void {
    for (let i = 0; i < count; i += 1) this.#interferences.push(interference);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake-taiga");
    const text = await readBody(request);
    let body: unknown = text;
    let parseError: string | undefined;
    if (text !== "" && (request.headers["content-type"] ?? "").startsWith("application/json")) {
      try {
        body = JSON.parse(text);
      } catch (error) {
        parseError = (error as Error).message;
      }
    }
    const query = Object.fromEntries(url.searchParams);
    const { method = "", headers } = request;
    this.requests.push({ method, path: url.pathname, search: url.search.slice(1), query, headers, body, remotePort: request.socket.remotePort });

    const interference = this.#interferences.shift();
    if (interference === "hang") return;
    if (interference === "server-error") return send(response, { status: 500, body: { error: "Server application error" } });
    if (interference === "html") return sendHtml(response, 200, "<html><body><h1>Maintenance</h1></body></html>");
    if (interference !== undefined && "status" in interference) return send(response, interference);
    if (interference !== undefined) {
      const wait = interference.throttleSeconds;
      const message = `Request was throttled.Expected available in ${wait} seconds.`;
      return send(response, { status: 429, body: { _error_message: message, _error_type: TYPE("Throttled") }, headers: { "X-Throttle-Wait-Seconds": String(wait) } });
    }

    const route = url.pathname.replace(/^\/api\/v1\//, "");
    const handler = url.pathname.startsWith("/api/v1/") ? this.#route(request.method ?? "", route) : undefined;
    if (handler === undefined) return sendHtml(response, 404, HTML_404);
    const auth = this.#authenticate(request.headers.authorization);
    if ("status" in auth) return send(response, auth);
    if (parseError !== undefined) return send(response, { status: 400, body: { _error_message: `JSON parse error - ${parseError}`, _error_type: TYPE("ParseError") } });
    send(response, handler({ viewer: auth.viewer, query, body, headers: request.headers, url }));
  }

  #route(method: string, route: string): ((call: Call) => Answer) | undefined {
    const kind: FakeKind | undefined = /^userstor/.test(route) ? "userstories" : /^task/.test(route) ? "tasks" : undefined;
    const id = /^(userstories|tasks)\/(\d+)$/.exec(route)?.[2];
    if (method === "POST" && route === "auth") return (call) => this.#login(call);
    if (method === "GET" && route === "projects") return (call) => this.#listProjects(call);
    if (method === "GET" && route === "projects/by_slug") return (call) => this.#projectBySlug(call);
    if (method === "GET" && kind && route === `${kind}/by_ref`) return (call) => this.#byRef(kind, call);
    if (method === "POST" && kind && route === kind) return (call) => this.#create(kind, call);
    if (method === "PATCH" && kind && id !== undefined) return (call) => this.#patch(kind, Number(id), call);
    if (method === "GET" && (route === "userstory-statuses" || route === "task-statuses")) return (call) => this.#statuses(kind!, call);
    return undefined;
  }

  /** Taiga authenticates every request first: only a `Bearer` header counts, and a bad one fails even on login. */
  #authenticate(header: string | undefined): { viewer: FakeUser | undefined } | Answer {
    const parts = (header ?? "").split(/\s+/).filter(Boolean);
    if (parts[0] !== "Bearer") return { viewer: undefined };
    const unauthorized = (body: unknown): Answer => ({ status: 401, body, headers: BEARER_REALM });
    if (parts.length !== 2) return unauthorized({ detail: "Authorization header must contain two space-delimited values", code: "bad_authorization_header" });
    const user = this.users.find((candidate) => candidate.id === this.tokens.get(parts[1]!));
    if (!user) {
      const messages = [{ token_class: "AccessToken", token_type: "access", message: "Token is invalid or expired" }];
      return unauthorized({ detail: "Given token not valid for any token type", code: "token_not_valid", messages });
    }
    if (!user.active) return unauthorized({ detail: "User is inactive", code: "user_inactive" });
    return { viewer: user };
  }

  #login({ body }: Call): Answer {
    const data = asRecord(body);
    if (typeof data.type !== "string" || !this.#loginTypes.includes(data.type.toLowerCase())) {
      return { status: 400, body: { _error_message: "invalid login type", _error_type: TYPE("BadRequest") } };
    }
    const missing = ["username", "password"].filter((field) => typeof data[field] !== "string" || data[field] === "");
    if (missing.length > 0) return { status: 400, body: Object.fromEntries(missing.map((field) => [field, ["This field is required."]])) };
    const name = String(data.username).toLowerCase();
    const matches = this.users.filter((user) => user.username.toLowerCase() === name || user.email.toLowerCase() === name);
    const user = matches.length > 1 ? matches.find((candidate) => candidate.username === data.username) : matches[0];
    if (!user || user.password !== data.password || !user.active) {
      return { status: 401, body: { detail: "No active account found with the given credentials", code: "invalid_credentials" }, headers: BEARER_REALM };
    }
    return { status: 200, body: this.loginBody(user, this.issueToken(user)) };
  }

  #listProjects(call: Call): Answer {
    const member = call.query.member;
    if (member !== undefined && !/^-?\d+$/.test(member)) {
      return { status: 400, body: { _error_message: "Error in filter params types.", _error_type: TYPE("BadRequest") } };
    }
    const rows = this.projects
      .filter((project) => this.#canView(project, call.viewer))
      .filter((project) => member === undefined || project.members.includes(Number(member)))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id)
      .map((project) => this.projectBody(project, call.viewer, false));
    return paginate(rows, call);
  }

  #projectBySlug(call: Call): Answer {
    const project = this.projects.find((candidate) => candidate.slug === call.query.slug && this.#canView(candidate, call.viewer));
    if (!project) return call.viewer ? { status: 404, body: { _error_message: "" } } : { status: 401, body: NOT_AUTHENTICATED, headers: BEARER_REALM };
    return { status: 200, body: this.projectBody(project, call.viewer, true) };
  }

  #byRef(kind: FakeKind, call: Call): Answer {
    const { ref, project: projectId, project__slug: slug } = call.query;
    if (ref === undefined) return { status: 400, body: "ref param is needed" };
    if (projectId === undefined && slug === undefined) return { status: 400, body: "project or project__slug param is needed" };
    if ((projectId !== undefined && !/^\d+$/.test(projectId)) || !/^\d+$/.test(ref)) return { status: 404, body: { _error_message: "" } };
    const project = this.projects.find((candidate) => (projectId !== undefined ? candidate.id === Number(projectId) : candidate.slug === slug));
    const ticket = this.tickets.find((candidate) => candidate.kind === kind && candidate.project === project?.id && candidate.ref === Number(ref));
    if (!project || !ticket) return { status: 404, body: { _error_message: `No ${kind === "userstories" ? "UserStory" : "Task"} matches the given query.` } };
    if (!this.#canView(project, call.viewer)) return call.viewer ? { status: 403, body: PERMISSION_DENIED } : { status: 401, body: NOT_AUTHENTICATED, headers: BEARER_REALM };
    return { status: 200, body: this.ticketBody(ticket, true) };
  }

  #create(kind: FakeKind, call: Call): Answer {
    const data = asRecord(call.body);
    const errors: Record<string, string[]> = {};
    const project = this.#relation(data, "project", errors, (id) => this.projects.find((candidate) => candidate.id === id));
    const status = this.#relation(data, "status", errors, (id) => this.findStatus(id));
    const story = kind === "tasks" ? this.#relation(data, "user_story", errors, (id) => this.#ticket("userstories", id)) : undefined;
    if (typeof data.subject !== "string" || data.subject.trim() === "") errors.subject = ["This field is required."];
    else if (data.subject.length > 500) errors.subject = [`Ensure this value has at most 500 characters (it has ${data.subject.length}).`];
    if (Object.keys(errors).length > 0 || !project) return { status: 400, body: errors };
    if (!call.viewer) return { status: 401, body: NOT_AUTHENTICATED, headers: BEARER_REALM };
    if (!project.members.includes(call.viewer.id)) return { status: 403, body: PERMISSION_DENIED };
    const what = kind === "userstories" ? "user story" : "task";
    if (status && status.project !== project.id) return this.#foreignRelation(kind, `You don't have permissions to set this status to this ${what}.`);
    if (story && story.project !== project.id) return this.#foreignRelation(kind, "You don't have permissions to set this user story to this task.");
    const ticket = this.createTicket(kind, project, { subject: String(data.subject), status: status?.id, userStory: story?.id, owner: call.viewer.id });
    return { status: 201, body: this.ticketBody(ticket, false) };
  }

  #patch(kind: FakeKind, id: number, call: Call): Answer {
    const ticket = this.#ticket(kind, id);
    const project = this.projects.find((candidate) => candidate.id === ticket?.project);
    if (!call.viewer) return { status: 401, body: NOT_AUTHENTICATED, headers: BEARER_REALM };
    if (!ticket || !project || !project.members.includes(call.viewer.id)) return { status: 403, body: PERMISSION_DENIED };
    const data = asRecord(call.body);
    const errors: Record<string, string[]> = {};
    const status = this.#relation(data, "status", errors, (statusId) => this.findStatus(statusId), false);
    if ("version" in data && data.version !== null && !Number.isInteger(Number(data.version))) errors.version = ["Enter a whole number."];
    if ("subject" in data && (typeof data.subject !== "string" || data.subject.trim() === "")) errors.subject = ["This field is required."];
    if (Object.keys(errors).length > 0) return { status: 400, body: errors };
    const invalidVersion: Answer = { status: 400, body: { version: "The version parameter is not valid" } };
    if (data.version === undefined || data.version === null) return invalidVersion;
    const version = Number(data.version);
    if (version < 0 || version > ticket.version) return invalidVersion;
    const fields = Object.keys(data).filter((field) => field !== "version");
    const changedSince = ticket.changes.slice(Math.max(version - 1, 0)).flat();
    if (fields.some((field) => changedSince.includes(field))) return { status: 400, body: { version: "The version doesn't match with the current one" } };
    const what = kind === "userstories" ? "user story" : "task";
    if (status && status.project !== project.id) return this.#foreignRelation(kind, `You don't have permissions to set this status to this ${what}.`);
    this.editTicket(ticket, { status: status?.id, subject: typeof data.subject === "string" ? data.subject : undefined });
    return { status: 200, body: this.ticketBody(ticket, false), headers: { "Taiga-Info-Order-Updated": "{}" } };
  }

  #statuses(kind: FakeKind, call: Call): Answer {
    const projectId = call.query.project;
    if (projectId !== undefined && !/^\d+$/.test(projectId)) {
      return { status: 400, body: { _error_message: "'project' must be an integer value.", _error_type: TYPE("BadRequest") } };
    }
    const rows = this.projects
      .filter((project) => this.#canView(project, call.viewer) && (projectId === undefined || project.id === Number(projectId)))
      .flatMap((project) => project.statuses[kind])
      .sort((a, b) => a.project - b.project || a.order - b.order || a.name.localeCompare(b.name))
      .map((status) => this.statusBody(kind, status));
    return paginate(rows, call);
  }

  /** A primary-key field as DRF's PrimaryKeyRelatedField checks it; records the error it finds. */
  #relation<T>(data: Record<string, unknown>, field: string, errors: Record<string, string[]>, find: (id: number) => T | undefined, required = field === "project"): T | undefined {
    const value = data[field];
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
  #foreignRelation(kind: FakeKind, message: string): Answer {
    return kind === "userstories"
      ? { status: 403, body: { _error_message: message, _error_type: TYPE("PermissionDenied") } }
      : { status: 400, body: { _error_message: message, _error_type: TYPE("WrongArguments") } };
  }

  #ticket(kind: FakeKind, id: number): FakeTicket | undefined {
    return this.tickets.find((candidate) => candidate.kind === kind && candidate.id === id);
  }

  #canView(project: FakeProject, viewer: FakeUser | undefined): boolean {
    return !project.isPrivate || (viewer !== undefined && project.members.includes(viewer.id));
  }
}

interface Call {
  viewer: FakeUser | undefined;
  query: Record<string, string>;
  body: unknown;
  headers: IncomingHttpHeaders;
  url: URL;
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

function send(response: ServerResponse, answer: Answer): void {
  response.writeHead(answer.status, { "Content-Type": "application/json", Allow: "GET, POST, PATCH", ...answer.headers });
  response.end(JSON.stringify(answer.body));
}

function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
  response.end(html);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function asRecord(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
