import { prng } from "./prng.js";
import type { RawRequest } from "./raw-http.js";

/** A small seeded generator (mulberry32): the same seed gives the same requests. */
export class Random {
  readonly next: () => number;

  constructor(seed: number) {
    this.next = prng(seed);
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** What the requests aim at: ids of the documents and the bodies' size limit. */
export interface Targets {
  /** A document the barrage may change (valid requests on it succeed). */
  victim: string;
  /** Documents no request may change: only malformed forms of their ids are used. */
  bystanders: string[];
  unknown: string;
  maxBodyBytes: number;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const JSON_HEADER: [string, string] = ["Content-Type", "application/json"];

/** Numbers (as JSON source text) beyond what an int64 or int32 field accepts, or not integers at all. */
const BAD_NUMBERS = ["1e308", "-1", "-0.5", "1.5", "9007199254740992", "9007199254740993", "9223372036854775807", "18446744073709551616", "2147483648", "-9007199254740993", "1e400", "0.0000001", "123456789012345678901234567890"];
const BAD_VALUES = ['"1"', '""', "null", "true", "[]", "{}", '"\\ud800"', '"\\udfff x"', '{"__proto__":{"polluted":1}}', '"' + "x".repeat(70_000) + '"'];

/** Ids that are not a canonical UUID, built from a real one (they must never reach a store). */
function oddIds(id: string): string[] {
  return [
    `urn:uuid:${id}`,
    `urn%3Auuid%3A${id}`,
    `{${id}}`,
    `%7B${id}%7D`,
    id.replace(/-/g, ""),
    `${id}x`,
    `${id}%00`,
    ` ${id}`.replace(" ", "%20"),
    id.slice(1),
    `${id.slice(0, 8)}_${id.slice(9)}`,
    `${id.slice(0, 35)}g`,
    "%ZZ",
    "..",
    "%2e%2e",
    "null",
    "0",
    "-1",
    "x".repeat(300),
    "%C3%A9",
    "%FF%FE",
    "%ED%A0%80",
  ];
}

const ODD_QUERY_VALUES = ["-1", "1e308", "9007199254740992", "9007199254740991", "2147483648", "1.5", "abc", "", "0x10", "%00", "1%20", "%FF", "NaN", "Infinity", "-0"];

/** Invalid UTF-8 and other bytes that are not JSON text. */
const BAD_BYTES: Buffer[] = [
  Buffer.from([0xff, 0xfe, 0xfd]),
  Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('","content":"a"}')]),
  Buffer.concat([Buffer.from('{"title":"a","content":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]),
  Buffer.concat([Buffer.from('{"title":"a","content":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
  Buffer.from("{"),
  Buffer.from("nul"),
  Buffer.from('{"a":1,}'),
  Buffer.from("\u0000"),
  Buffer.from("[".repeat(20_000) + "]".repeat(20_000)),
  Buffer.from('{"a":'.repeat(5000) + "1" + "}".repeat(5000)),
  Buffer.from("1e999999"),
];

const WRONG_TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1", "application/json-patch+json", "application/xml", "application/jsonx", "*/*", "application/json; charset=utf-16"];

const JUNK_AUTHORIZATION: (string | Buffer)[] = [
  "Basic !!!",
  "Basic YWRtaW4=",
  "Basic YWRtaW46",
  `Basic ${Buffer.from("admin:wrong").toString("base64")}`,
  `Basic ${Buffer.from("root:x").toString("base64")}`,
  "Bearer abc",
  "Basic",
  `Basic ${"A".repeat(8000)}`,
  Buffer.from([0x42, 0x61, 0x73, 0x69, 0x63, 0x20, 0xff, 0xfe]),
  "Digest username=admin",
];

const JUNK_TOKENS: (string | Buffer)[] = ["", "a b", "x".repeat(600), "tok\ten", Buffer.from([0xc3, 0xa9, 0x74]), "Bearer abc", "null", "undefined", "x".repeat(512)];

const ODD_METHODS = ["PROPFIND", "TRACE", "PURGE", "MKCOL", "SEARCH", "LOCK", "REPORT", "COPY", "LINK", "HEAD"];

/** A well-formed body of every endpoint; mutated into hostile ones below. */
function baseBody(route: string): Record<string, unknown> | undefined {
  switch (route) {
    case "create":
      return { title: "T", content: "a\nb" };
    case "put":
      return { title: "T", content: "x", expectedVersion: 1 };
    case "title":
      return { title: "T", expectedVersion: 1 };
    case "restore":
      return { version: 1 };
    case "content":
      return { baseVersion: 1, checksum: `sha256:${"0".repeat(64)}`, clientId: "c", seq: 1, ops: [{ op: "insert", index: 0, lines: ["x"] }] };
    case "auth":
      return { username: "u", password: "p", type: "ldap" };
    case "story":
      return { project: 1, subject: "s" };
    case "task":
      return { project: 1, subject: "s", userStory: 1 };
    case "status":
      return { status: 1, version: 1 };
    default:
      return undefined;
  }
}

interface Route {
  name: string;
  method: string;
  path: (id: string) => string;
  query?: string[];
  tracker?: boolean;
}

const ROUTES: Route[] = [
  { name: "create", method: "POST", path: () => "/api/v1/documents" },
  { name: "list", method: "GET", path: () => "/api/v1/documents" },
  { name: "read", method: "GET", path: (id) => `/api/v1/documents/${id}` },
  { name: "put", method: "PUT", path: (id) => `/api/v1/documents/${id}` },
  { name: "delete", method: "DELETE", path: (id) => `/api/v1/documents/${id}` },
  { name: "history", method: "GET", path: (id) => `/api/v1/documents/${id}/history` },
  { name: "restore", method: "POST", path: (id) => `/api/v1/documents/${id}/restore` },
  { name: "title", method: "PATCH", path: (id) => `/api/v1/documents/${id}/title` },
  { name: "content", method: "PATCH", path: (id) => `/api/v1/documents/${id}/content` },
  { name: "changes", method: "GET", path: (id) => `/api/v1/documents/${id}/changes`, query: ["since", "wait"] },
  { name: "new-read-link", method: "POST", path: (id) => `/api/v1/documents/${id}/read-link` },
  { name: "read-link", method: "GET", path: (id) => `/api/v1/documents/${id}/read-link` },
  { name: "delete-read-link", method: "DELETE", path: (id) => `/api/v1/documents/${id}/read-link` },
  { name: "read-only", method: "GET", path: (id) => `/api/v1/read/${id}` },
  { name: "read-only-history", method: "GET", path: (id) => `/api/v1/read/${id}/history` },
  { name: "read-only-changes", method: "GET", path: (id) => `/api/v1/read/${id}/changes`, query: ["since", "wait"] },
  { name: "export", method: "GET", path: (id) => `/api/v1/documents/${id}/export`, query: ["format", "version"] },
  { name: "read-only-export", method: "GET", path: (id) => `/api/v1/read/${id}/export`, query: ["format", "version"] },
  { name: "info", method: "GET", path: () => "/api/v1/info" },
  { name: "openapi", method: "GET", path: () => "/api/v1/openapi.json" },
  { name: "auth", method: "POST", path: () => "/api/v1/tracker/auth", tracker: true },
  { name: "projects", method: "GET", path: () => "/api/v1/tracker/projects", query: ["member"], tracker: true },
  { name: "story", method: "POST", path: () => "/api/v1/tracker/userstories", tracker: true },
  { name: "task", method: "POST", path: () => "/api/v1/tracker/tasks", tracker: true },
  { name: "read-story", method: "GET", path: (ref) => `/api/v1/tracker/userstories/${ref}`, query: ["slug"], tracker: true },
  { name: "read-task", method: "GET", path: (ref) => `/api/v1/tracker/tasks/${ref}`, query: ["slug"], tracker: true },
  { name: "status", method: "PATCH", path: (ref) => `/api/v1/tracker/userstories/${ref}/status`, query: ["slug"], tracker: true },
  { name: "task-status", method: "PATCH", path: (ref) => `/api/v1/tracker/tasks/${ref}/status`, query: ["slug"], tracker: true },
  { name: "story-statuses", method: "GET", path: () => "/api/v1/tracker/userstory-statuses", query: ["slug"], tracker: true },
  { name: "task-statuses", method: "GET", path: () => "/api/v1/tracker/task-statuses", query: ["slug"], tracker: true },
];

const ODD_REFS = ["0", "-1", "1.5", "1e3", "9007199254740992", "99999999999999999999", "abc", "%00", "x".repeat(250), "1%20"];

/** Replaces one field of `body` (or adds one) with a hostile JSON value, written as source text. */
function mutateField(random: Random, body: Record<string, unknown>): Buffer {
  const keys = [...Object.keys(body), "__proto__", "constructor", "extra"];
  const key = random.pick(keys);
  const value = random.chance(0.5) ? random.pick(BAD_NUMBERS) : random.pick(BAD_VALUES);
  const rest = Object.entries(body)
    .filter(([name]) => name !== key)
    .map(([name, field]) => `${JSON.stringify(name)}:${JSON.stringify(field)}`);
  return Buffer.from(`{${[...rest, `${JSON.stringify(key)}:${value}`].join(",")}}`);
}

/** The id a request names: the victim, an unknown one, or a malformed form of any (bystanders only malformed). */
function anyId(random: Random, targets: Targets): string {
  if (random.chance(0.55)) return random.pick(oddIds(random.pick([...targets.bystanders, targets.victim, targets.unknown])));
  return random.chance(0.7) ? targets.victim : targets.unknown;
}

function query(random: Random, names: string[] | undefined): string {
  if (!names || random.chance(0.15)) return random.chance(0.5) ? "" : `?${random.pick(["since", "wait", "slug", "member", "x"])}=${random.pick(ODD_QUERY_VALUES)}`;
  const parts = names.map((name) => {
    if (random.chance(0.2)) return "";
    const value =
      name === "slug"
        ? random.pick(["alice-folio", "", "x".repeat(300), "%FF", "a%00b", "a&slug=b"])
        : name === "format"
          ? random.pick(["markdown", "opml", "text", "", "PDF", "%FF", "text%00", "opml&format=text"])
          : random.pick(ODD_QUERY_VALUES);
    return `${name}=${value}`;
  });
  if (random.chance(0.2)) parts.push(`${random.pick(names)}=1`);
  const text = parts.filter(Boolean).join("&");
  return text === "" ? "" : `?${text}`;
}

/** One hostile request; `kind` says what is odd about it (for the failure report). */
export function hostileRequest(random: Random, targets: Targets): { kind: string; request: RawRequest } {
  const route = random.pick(ROUTES);
  const id = route.tracker ? random.pick(ODD_REFS.concat(["1", "7"])) : anyId(random, targets);
  const target = route.path(id) + query(random, route.query);
  const base = baseBody(route.name);
  const headers: [string, string | Buffer][] = [];
  if (route.tracker && route.name !== "auth") headers.push(["X-Tracker-Token", random.pick(JUNK_TOKENS)]);
  if (route.name === "list" || random.chance(0.1)) headers.push(["Authorization", random.pick(JUNK_AUTHORIZATION)]);
  const kind = random.pick(["field", "field", "field", "field", "bytes", "type", "oversize", "method", "preflight", "plain", "plain", "plain", "headers"]);
  switch (kind) {
    case "field":
      return { kind, request: { method: route.method, target, headers: [...headers, JSON_HEADER], body: mutateField(random, base ?? {}) } };
    case "bytes":
      return { kind, request: { method: route.method, target, headers: [...headers, JSON_HEADER], body: random.pick(BAD_BYTES) } };
    case "type":
      return { kind, request: { method: route.method, target, headers: [...headers, ["Content-Type", random.pick(WRONG_TYPES)]], body: json(base ?? { a: 1 }) } };
    case "oversize":
      return { kind, request: { method: route.method, target, headers: [...headers, JSON_HEADER], body: json({ ...base, content: "x".repeat(targets.maxBodyBytes + 10) }) } };
    case "method":
      return { kind, request: { method: random.pick(ODD_METHODS), target, headers } };
    case "preflight": {
      const origin: [string, string][] = random.chance(0.6) ? [["Origin", random.pick(["https://editor.example", "https://evil.example", "null", "not a url"])]] : [];
      const requested: [string, string][] = random.chance(0.7) ? [["Access-Control-Request-Method", random.pick(["PATCH", "GET", "FOO", ""])]] : [];
      return { kind, request: { method: "OPTIONS", target, headers: [...origin, ...requested, ["Access-Control-Request-Headers", "x-tracker-token, content-type"]] } };
    }
    case "plain":
      // Well-formed apart from what the id and query carry.
      return { kind, request: { method: route.method, target, headers: base ? [...headers, JSON_HEADER] : headers, ...(base ? { body: json(base) } : {}) } };
    default: {
      const odd: [string, string | Buffer][] = random.pick([
        [["X-Request-Id", "x".repeat(500)]],
        [["X-Request-Id", Buffer.from([0xff, 0x00, 0x41])]],
        [["Content-Length", "abc"]],
        [["Content-Length", "-1"]],
        [["Transfer-Encoding", "chunked"], ["Content-Length", "3"]],
        [["Accept", "text/html"]],
        [["Content-Type", Buffer.from([0xff, 0xfe])]],
        [["If-None-Match", "*"]],
        [["Expect", "100-continue"]],
        [["X-Bad\u0001Name", "1"]],
      ]);
      return { kind: "headers", request: { method: route.method, target, headers: [...headers, ...odd], ...(base ? { body: json(base) } : {}) } };
    }
  }
}

function withField(body: Record<string, unknown>, key: string, value: string): Buffer {
  const rest = Object.entries(body)
    .filter(([name]) => name !== key)
    .map(([name, field]) => `${JSON.stringify(name)}:${JSON.stringify(field)}`);
  return Buffer.from(`{${[...rest, `${JSON.stringify(key)}:${value}`].join(",")}}`);
}

/**
 * The systematic part, before the random one: every id route with every malformed form of a
 * bystander's id (and an otherwise valid body), every body field with every out-of-range number,
 * every query parameter with every odd value.
 */
export function sweepRequests(targets: Targets): { kind: string; request: RawRequest }[] {
  const requests: { kind: string; request: RawRequest }[] = [];
  const token: [string, string][] = [["X-Tracker-Token", "a-token-the-tracker-does-not-know"]];
  for (const route of ROUTES) {
    const base = baseBody(route.name);
    const headers: [string, string][] = route.tracker && route.name !== "auth" ? [...token] : [];
    if (base) headers.push(JSON_HEADER);
    const body = base ? { body: json(base) } : {};
    const usesId = route.path("ID").includes("ID");
    if (usesId && !route.tracker) {
      for (const id of oddIds(targets.bystanders[0] ?? targets.unknown)) requests.push({ kind: "plain", request: { method: route.method, target: route.path(id), headers, ...body } });
    }
    if (usesId && route.tracker) {
      for (const ref of ODD_REFS) requests.push({ kind: "plain", request: { method: route.method, target: `${route.path(ref)}?slug=alice-folio`, headers, ...body } });
    }
    const path = route.path(route.tracker ? "1" : targets.victim);
    const fixedQuery = route.query?.includes("slug") ? "?slug=alice-folio" : "";
    for (const key of Object.keys(base ?? {})) {
      for (const value of BAD_NUMBERS) requests.push({ kind: "field", request: { method: route.method, target: path + fixedQuery, headers, body: withField(base ?? {}, key, value) } });
    }
    for (const name of route.query ?? []) {
      for (const value of ODD_QUERY_VALUES) requests.push({ kind: "plain", request: { method: route.method, target: `${path}?${name}=${value}`, headers, ...body } });
    }
  }
  return requests;
}
