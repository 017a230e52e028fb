import { ServiceError } from "../service/service-error.js";
import {
  authShape,
  projectListShape,
  projectShape,
  statusListShape,
  ticketShape,
  toProject,
  toSession,
  toStatus,
  toTicket,
  toTicketDetail,
  type TaigaTicket,
} from "./taiga-shapes.js";
import { TaigaTransport, type TrackerCallObserver } from "./taiga-transport.js";
import type {
  TaigaTicketPath,
  TrackerCredentials,
  TrackerProject,
  TrackerSession,
  TrackerStatus,
  TrackerStatusChange,
  TrackerStoryCreate,
  TrackerTaskCreate,
  TrackerTicket,
  TrackerTicketDetail,
} from "./tracker-types.js";

export interface TaigaClientOptions {
  /** The tracker API base, e.g. `https://tracker.example/api/v1`; the only upstream address there is. */
  apiUrl: string;
  /** The `type` sent on login (`ldap`, `normal`, …). */
  loginType: string;
  /** The deadline of one proxied operation, all its upstream calls together; past it: 502. */
  timeoutMs: number;
  /** Told of every upstream call (the metrics). */
  observe?: TrackerCallObserver;
}

const KIND_NAME: Readonly<Record<TaigaTicketPath, string>> = { userstories: "user story", tasks: "task" };
const STATUS_PATH: Readonly<Record<TaigaTicketPath, string>> = { userstories: "/userstory-statuses", tasks: "/task-statuses" };
const MAX_SLUG = 255;

/**
 * The typed client of the allow-listed Taiga calls (docs/taiga.md#the-calls). Every method answers
 * in the interface's shapes or throws a {@link ServiceError} (see upstream-error.ts for the mapping).
 * Nothing from a request can change the upstream host or path: ids and refs are checked integers,
 * the slug travels only as a URL-encoded query value.
 */
export class TaigaClient {
  readonly #transport: TaigaTransport;
  readonly #loginType: string;
  readonly #timeoutMs: number;

  constructor(options: TaigaClientOptions) {
    this.#transport = new TaigaTransport(options.apiUrl, options.timeoutMs, options.observe);
    this.#loginType = options.loginType;
    this.#timeoutMs = options.timeoutMs;
  }

  /** `POST /auth` with the configured login type; never sends an `Authorization` header. */
  async login(credentials: TrackerCredentials): Promise<TrackerSession> {
    const { username, password } = credentials;
    const answer = await this.#transport.send({
      method: "POST",
      path: "/auth",
      body: { type: this.#loginType, username, password },
      shape: authShape,
      login: true,
      secrets: [password],
      signal: this.#deadline(),
    });
    return toSession(answer);
  }

  /** `GET /projects?member=<id>`, every page at once. */
  async listProjects(token: string, member: number): Promise<TrackerProject[]> {
    const query = { member: wholeNumber(member, "member") };
    const answer = await this.#transport.send({ ...this.#get(token, "/projects", query), list: true, shape: projectListShape });
    return answer.map(toProject);
  }

  /** `POST /userstories`; the story gets the project's default status. */
  async createStory(token: string, request: TrackerStoryCreate): Promise<TrackerTicket> {
    const body = { project: wholeNumber(request.project, "project"), subject: request.subject };
    return toTicket(await this.#transport.send({ ...this.#write(token, "POST", "/userstories", body), shape: ticketShape }));
  }

  /** `POST /tasks`, always inside the story `userStory` (an id, not a ref). */
  async createTask(token: string, request: TrackerTaskCreate): Promise<TrackerTicket> {
    const body = {
      project: wholeNumber(request.project, "project"),
      subject: request.subject,
      user_story: wholeNumber(request.userStory, "userStory"),
    };
    return toTicket(await this.#transport.send({ ...this.#write(token, "POST", "/tasks", body), shape: ticketShape }));
  }

  /** `GET /projects/by_slug`, then `GET /<kind>/by_ref`. */
  async readTicket(token: string, kind: TaigaTicketPath, slug: string, ref: number): Promise<TrackerTicketDetail> {
    const signal = this.#deadline();
    return toTicketDetail(await this.#ticketByRef(token, kind, slug, ref, signal));
  }

  /**
   * Looks the ticket up by slug and ref, then `PATCH /<kind>/<id>` with `{status, version}`. Taiga's
   * optimistic lock decides; a rejection is passed on and never retried.
   */
  async changeTicketStatus(token: string, kind: TaigaTicketPath, slug: string, ref: number, change: TrackerStatusChange): Promise<TrackerTicketDetail> {
    const body = { status: wholeNumber(change.status, "status"), version: wholeNumber(change.version, "version") };
    const signal = this.#deadline();
    const ticket = await this.#ticketByRef(token, kind, slug, ref, signal);
    const answer = await this.#transport.send({
      ...this.#write(token, "PATCH", `/${kind}/${ticket.id}`, body, signal),
      shape: ticketShape,
      notFound: `the ${KIND_NAME[kind]} is gone from the tracker`,
    });
    return toTicketDetail(answer);
  }

  /** `GET /projects/by_slug`, then `GET /userstory-statuses` or `/task-statuses` of that project. */
  async listStatuses(token: string, kind: TaigaTicketPath, slug: string): Promise<TrackerStatus[]> {
    const signal = this.#deadline();
    const project = await this.#projectBySlug(token, slug, signal);
    const answer = await this.#transport.send({
      ...this.#get(token, STATUS_PATH[kind], { project: project.id }, signal),
      list: true,
      shape: statusListShape,
    });
    return answer.map(toStatus);
  }

  /** Closes the pooled connections; waits for calls in flight, which are bounded by the timeout. */
  async close(): Promise<void> {
    await this.#transport.close();
  }

  async #projectBySlug(token: string, slug: string, signal: AbortSignal): Promise<{ id: number }> {
    if (slug.length < 1 || slug.length > MAX_SLUG) throw new ServiceError("invalid-request", `slug must be 1 to ${MAX_SLUG} characters`);
    return this.#transport.send({
      ...this.#get(token, "/projects/by_slug", { slug }, signal),
      shape: projectShape,
      notFound: "the tracker has no project with this slug, or it is hidden from this user",
    });
  }

  async #ticketByRef(token: string, kind: TaigaTicketPath, slug: string, ref: number, signal: AbortSignal): Promise<TaigaTicket> {
    if (!Number.isSafeInteger(ref) || ref < 1) throw new ServiceError("invalid-request", "ref must be a whole number of at least 1");
    const project = await this.#projectBySlug(token, slug, signal);
    return this.#transport.send({
      ...this.#get(token, `/${kind}/by_ref`, { project: project.id, ref }, signal),
      shape: ticketShape,
      notFound: `the tracker has no ${KIND_NAME[kind]} with this ref in the project`,
    });
  }

  #get(token: string, path: string, query: Record<string, string | number>, signal = this.#deadline()) {
    return { method: "GET" as const, path, query, token, secrets: [token], signal };
  }

  #write(token: string, method: "POST" | "PATCH", path: string, body: object, signal = this.#deadline()) {
    return { method, path, body, token, secrets: [token], signal };
  }

  #deadline(): AbortSignal {
    return AbortSignal.timeout(this.#timeoutMs);
  }
}

function wholeNumber(value: number, name: string): number {
  if (!Number.isSafeInteger(value)) throw new ServiceError("invalid-request", `${name} must be a whole number`);
  return value;
}
