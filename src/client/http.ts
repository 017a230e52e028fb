import { FolioError, FolioNetworkError, isAbort } from "./errors.js";
import { exportedFile, exportQuery, type ExportedFile, type ExportOptions } from "./export-calls.js";
import { ENDED_STREAM, readFrames, type FeedStream } from "./feed-stream.js";
import { presenceCalls, type PresenceCalls } from "./presence-calls.js";
import { readCalls, type ReadCalls } from "./read-calls.js";
import type { ExportFormat } from "../core/outline-formats.js";
import type {
  ChangeFeed,
  ContentConflict,
  ContentPatchRequest,
  ContentPatchResult,
  Document,
  HistoryEntry,
  ProblemDetail,
  ServiceInfo,
  TrackerProject,
  TrackerSession,
  TrackerStatus,
  TrackerTicket,
  TrackerTicketDetail,
} from "./types.js";

export interface ClientOptions {
  /** The service's root (the interface's `{base_url}`); the client adds `/api/v1`. "" or "/" in a page the service serves. */
  baseUrl: string;
  /** Defaults to globalThis.fetch. */
  fetch?: typeof fetch;
}

export type PatchAnswer = { status: 200; result: ContentPatchResult } | { status: 409; conflict: ContentConflict };

/** The typed calls of every endpoint; docs/editing-protocol.md describes the contract. */
export interface FolioClient {
  readonly baseUrl: string;
  info(): Promise<ServiceInfo>;
  listDocuments(password: string): Promise<Document[]>;
  createDocument(body: { title: string; content: string }): Promise<Document>;
  getDocument(id: string, signal?: AbortSignal): Promise<Document>;
  replaceDocument(id: string, body: { title: string; content: string; expectedVersion?: number }): Promise<Document>;
  deleteDocument(id: string): Promise<void>;
  history(id: string): Promise<HistoryEntry[]>;
  restore(id: string, version?: number): Promise<Document>;
  renameDocument(id: string, body: { title: string; expectedVersion: number }, signal?: AbortSignal): Promise<Document>;
  /** 409 ContentConflict is data, not an exception. */
  patchContent(id: string, body: ContentPatchRequest, signal?: AbortSignal): Promise<PatchAnswer>;
  /** null on 204. */
  changes(id: string, query: { since: number; wait?: number }, signal?: AbortSignal): Promise<ChangeFeed | null>;
  /**
   * GET …/events: the feed as a stream of its answers (docs/api.md, "The event stream"); `undefined`
   * when the service has none (an older one: a 404 that is not the document's, or no text/event-stream).
   */
  events(id: string, since: number, signal: AbortSignal): Promise<FeedStream | undefined>;
  /** GET …/export: the document, or one of its versions, as a Markdown, OPML or text file (docs/notation.md). */
  exportDocument(id: string, format: ExportFormat, options?: ExportOptions): Promise<ExportedFile>;
  tracker: TrackerCalls;
  /** Read-only links: made, rotated and revoked by the document's id; read by the link's. */
  read: ReadCalls;
  /** Who is at a document now (docs/api.md, "Presence"); never stored by the service. */
  presence: PresenceCalls;
}

export interface TrackerCalls {
  login(body: { username: string; password: string }): Promise<TrackerSession>;
  projects(token: string, member: number): Promise<TrackerProject[]>;
  createStory(token: string, body: { project: number; subject: string }): Promise<TrackerTicket>;
  createTask(token: string, body: { project: number; subject: string; userStory: number }): Promise<TrackerTicket>;
  story(token: string, slug: string, ref: number): Promise<TrackerTicketDetail>;
  task(token: string, slug: string, ref: number): Promise<TrackerTicketDetail>;
  moveStory(token: string, slug: string, ref: number, body: { status: number; version: number }): Promise<TrackerTicketDetail>;
  moveTask(token: string, slug: string, ref: number, body: { status: number; version: number }): Promise<TrackerTicketDetail>;
  storyStatuses(token: string, slug: string): Promise<TrackerStatus[]>;
  taskStatuses(token: string, slug: string): Promise<TrackerStatus[]>;
}

/** The fixed user name of the protected document list (HTTP Basic). */
const LIST_USER = "admin";

interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** Statuses besides 2xx whose JSON body is returned as data. */
  dataStatuses?: readonly number[];
  /** A 2xx answer is a file: its body is returned as text, not parsed. */
  file?: boolean;
  /** The request outlives the page (fetch's keepalive): a goodbye sent at `pagehide`. */
  keepalive?: boolean;
}

interface Answer {
  status: number;
  body: unknown;
  /** The file name a file's `Content-Disposition` gives, when readable. */
  disposition?: string | null;
}

/** A client for the service at `baseUrl`. */
export function createClient(options: ClientOptions): FolioClient {
  const root = `${options.baseUrl.replace(/\/+$/, "")}/api/v1`;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function send(call: Call): Promise<Answer> {
    const headers: Record<string, string> = { accept: "application/json, application/problem+json", ...call.headers };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await doFetch(root + call.path, {
        method: call.method,
        headers,
        ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.keepalive ? { keepalive: true } : {}),
      });
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new FolioNetworkError(`${call.method} ${call.path}: no answer (${String(error)})`, { cause: error });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new FolioNetworkError(`${call.method} ${call.path}: the answer broke off (${String(error)})`, { cause: error });
    }
    if (call.file && response.ok) return { status: response.status, body: text, disposition: response.headers.get("content-disposition") };
    const body = parseBody(text);
    if ((response.status >= 200 && response.status < 300) || call.dataStatuses?.includes(response.status)) {
      if (body === INVALID) throw new FolioNetworkError(`${call.method} ${call.path}: the answer is not JSON`);
      return { status: response.status, body };
    }
    throw new FolioError(response.status, isProblem(body) ? body : undefined, retryAfter(response.headers.get("retry-after")));
  }

  /** Opens an event stream at `path` (see {@link FolioClient.events}). */
  async function stream(path: string, signal: AbortSignal): Promise<FeedStream | undefined> {
    let response: Response;
    try {
      response = await doFetch(root + path, { method: "GET", headers: { accept: "text/event-stream" }, signal });
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new FolioNetworkError(`GET ${path}: no answer (${String(error)})`, { cause: error });
    }
    const media = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
    if (response.status === 200 && media === "text/event-stream" && response.body) return readFrames(response.body, `GET ${path}`);
    const body = parseBody(await response.text().catch(() => ""));
    // The 204 of an instance that is shutting down: ask again.
    if (response.status === 204) return ENDED_STREAM;
    // An older service (its 404 is route-not-found) or a proxy's own answer: no stream here.
    if (response.ok || (response.status === 404 && !(isProblem(body) && body.type.endsWith(":not-found")))) return undefined;
    throw new FolioError(response.status, isProblem(body) ? body : undefined, retryAfter(response.headers.get("retry-after")));
  }

  const json = async <T>(call: Call): Promise<T> => (await send(call)).body as T;
  const doc = (id: string) => `/documents/${encodeURIComponent(id)}`;
  const token = (value: string) => ({ "x-tracker-token": value });
  const slugQuery = (slug: string) => `?slug=${encodeURIComponent(slug)}`;

  return {
    baseUrl: options.baseUrl,
    info: () => json({ method: "GET", path: "/info" }),
    listDocuments: (password) => json({ method: "GET", path: "/documents", headers: { authorization: `Basic ${base64(`${LIST_USER}:${password}`)}` } }),
    createDocument: (body) => json({ method: "POST", path: "/documents", body }),
    getDocument: (id, signal) => json({ method: "GET", path: doc(id), signal }),
    replaceDocument: (id, body) => json({ method: "PUT", path: doc(id), body }),
    deleteDocument: async (id) => {
      await send({ method: "DELETE", path: doc(id) });
    },
    history: (id) => json({ method: "GET", path: `${doc(id)}/history` }),
    restore: (id, version) => json({ method: "POST", path: `${doc(id)}/restore`, ...(version !== undefined ? { body: { version } } : {}) }),
    renameDocument: (id, body, signal) => json({ method: "PATCH", path: `${doc(id)}/title`, body, signal }),
    patchContent: async (id, body, signal) => {
      const answer = await send({ method: "PATCH", path: `${doc(id)}/content`, body, signal, dataStatuses: [409] });
      if (answer.status === 409) {
        // A 409 problem (a reused seq) is an error; only a ContentConflict is data.
        if (isProblem(answer.body)) throw new FolioError(409, answer.body);
        return { status: 409, conflict: answer.body as ContentConflict };
      }
      return { status: 200, result: answer.body as ContentPatchResult };
    },
    changes: async (id, query, signal) => {
      const wait = query.wait !== undefined ? `&wait=${query.wait}` : "";
      const answer = await send({ method: "GET", path: `${doc(id)}/changes?since=${query.since}${wait}`, signal });
      return answer.status === 204 ? null : (answer.body as ChangeFeed);
    },
    events: (id, since, signal) => stream(`${doc(id)}/events?since=${since}`, signal),
    exportDocument: async (id, format, options) => exportedFile(format, await send({ method: "GET", path: `${doc(id)}/export${exportQuery(format, options)}`, signal: options?.signal, file: true })),
    tracker: {
      login: (body) => json({ method: "POST", path: "/tracker/auth", body }),
      projects: (t, member) => json({ method: "GET", path: `/tracker/projects?member=${member}`, headers: token(t) }),
      createStory: (t, body) => json({ method: "POST", path: "/tracker/userstories", body, headers: token(t) }),
      createTask: (t, body) => json({ method: "POST", path: "/tracker/tasks", body, headers: token(t) }),
      story: (t, slug, ref) => json({ method: "GET", path: `/tracker/userstories/${ref}${slugQuery(slug)}`, headers: token(t) }),
      task: (t, slug, ref) => json({ method: "GET", path: `/tracker/tasks/${ref}${slugQuery(slug)}`, headers: token(t) }),
      moveStory: (t, slug, ref, body) => json({ method: "PATCH", path: `/tracker/userstories/${ref}/status${slugQuery(slug)}`, body, headers: token(t) }),
      moveTask: (t, slug, ref, body) => json({ method: "PATCH", path: `/tracker/tasks/${ref}/status${slugQuery(slug)}`, body, headers: token(t) }),
      storyStatuses: (t, slug) => json({ method: "GET", path: `/tracker/userstory-statuses${slugQuery(slug)}`, headers: token(t) }),
      taskStatuses: (t, slug) => json({ method: "GET", path: `/tracker/task-statuses${slugQuery(slug)}`, headers: token(t) }),
    },
    read: readCalls(send, stream),
    presence: presenceCalls(send),
  };
}

const INVALID = Symbol("invalid JSON");

function parseBody(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return INVALID;
  }
}

function isProblem(body: unknown): body is ProblemDetail {
  return typeof body === "object" && body !== null && typeof (body as { type?: unknown }).type === "string" && typeof (body as { status?: unknown }).status === "number";
}

/** `Retry-After` in seconds; an HTTP date is turned into seconds from now. Undefined when absent or unreadable. */
export function retryAfter(header: string | null): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

/** Base64 of the UTF-8 bytes (btoa alone takes only Latin-1). */
function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
