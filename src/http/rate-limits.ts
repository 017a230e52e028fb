import rateLimit, { type CreateRateLimitOptions } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config/config.js";
import { sendProblem } from "./problem-details.js";

/**
 * The client addresses (or tracker user names) each limit remembers. Past this, the key seen least
 * recently is forgotten (its count starts again), so memory stays bounded however many addresses
 * call; an address that keeps sending is always recent and never forgotten. 200–300 bytes a key,
 * so at most about 3 MB a limit (docs/operations.md, "Rate limits").
 */
export const REMEMBERED_ADDRESSES = 10_000;

/** The methods that write; every route under the API prefix with one of them is limited. */
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const READ_METHODS = new Set(["GET", "HEAD"]);

type Check = ReturnType<FastifyInstance["createRateLimit"]>;

interface Limit {
  check: Check;
  /** The problem's detail for a refused request. */
  detail: (retryAfterSeconds: number) => string;
}

/** The user name a tracker login is counted under: case and Unicode form do not make a new one. */
export function loginName(body: unknown): string {
  const name = (body as { username?: unknown } | null)?.username;
  return typeof name === "string" ? name.normalize("NFC").toLowerCase() : "";
}

/**
 * Limits requests per client address (`request.ip`: the address after `server.trust-proxy`; an IPv6
 * client's whole /64, since one host holds that many addresses) and per instance, each limit a key
 * of its own (README, "Rate limits"):
 * - POST of the document collection by `creates-per-minute`;
 * - every other write under `apiPrefix` (whatever its path: new routes are covered as they are
 *   added) by `writes-per-second`;
 * - every read (GET, HEAD) under `apiPrefix` by `reads-per-second`, and the tracker proxy's reads,
 *   which each cost an upstream call, by `tracker-reads-per-second` as well;
 * - tracker logins by `tracker-logins-per-minute`, per address and, once the body is read, per
 *   user name, since guesses at one account may come from many addresses.
 * Fixed windows: a window starts with a key's first request and holds `max` requests. Past a limit
 * the request is answered 429 `rate-limited` with `Retry-After` (before its body is read, except for
 * the per-name count of logins), so nothing is written and nothing goes upstream. A limit of 0 is off.
 */
export async function rateLimits(app: FastifyInstance, limits: Config["rateLimit"], apiPrefix: string): Promise<void> {
  const limiter = (max: number, timeWindow: number, detail: Limit["detail"], keyGenerator?: (request: FastifyRequest) => string): Limit | undefined => {
    if (max === 0) return undefined;
    // `cache` sizes the store of this limit: the plugin passes every option on to it.
    const options: CreateRateLimitOptions & { cache: number } = { max, timeWindow, cache: REMEMBERED_ADDRESSES, ...(keyGenerator ? { keyGenerator } : {}) };
    return { check: app.createRateLimit(options), detail };
  };
  // Only the limiters are used (createRateLimit), so that all writes of an address share one count
  // whatever their route, and the answer is rendered like every other problem.
  await app.register(rateLimit, { global: false });
  const perSecond = (what: string, max: number) => (seconds: number) => `more than ${max} ${what} in a second from this address; retry in ${seconds} s`;
  const creates = limiter(
    limits.createsPerMinute,
    60_000,
    (seconds) => `more than ${limits.createsPerMinute} documents created in a minute from this address; retry in ${seconds} s`,
  );
  const writes = limiter(limits.writesPerSecond, 1000, perSecond("writes", limits.writesPerSecond));
  const reads = limiter(limits.readsPerSecond, 1000, perSecond("reads", limits.readsPerSecond));
  const trackerReads = limiter(limits.trackerReadsPerSecond, 1000, perSecond("tracker reads", limits.trackerReadsPerSecond));
  const loginsDetail = (whose: string) => (seconds: number) =>
    `more than ${limits.trackerLoginsPerMinute} tracker logins in a minute ${whose}; retry in ${seconds} s`;
  const logins = limiter(limits.trackerLoginsPerMinute, 60_000, loginsDetail("from this address"));
  const loginsByName = limiter(limits.trackerLoginsPerMinute, 60_000, loginsDetail("for this user name"), (request) => loginName(request.body));

  const collection = `${apiPrefix}/documents`;
  const trackerPrefix = `${apiPrefix}/tracker/`;
  const login = `${apiPrefix}/tracker/auth`;
  /** The limits a request counts against, in the order they are checked. */
  const limitsOf = (request: FastifyRequest): (Limit | undefined)[] => {
    const route = request.routeOptions.url;
    // An unknown route costs nothing (404). A request without an address has lost its connection
    // already (Node forgets the address of a closed socket): it can neither send a body nor get an answer.
    if (route === undefined || !route.startsWith(`${apiPrefix}/`) || request.ip === undefined) return [];
    if (READ_METHODS.has(request.method)) return route.startsWith(trackerPrefix) ? [reads, trackerReads] : [reads];
    if (!WRITE_METHODS.has(request.method)) return [];
    if (request.method === "POST" && route === collection) return [creates];
    return route === login && request.method === "POST" ? [writes, logins] : [writes];
  };
  // A callback hook: requests under no limit pass without a promise.
  app.addHook("onRequest", (request, reply, done) => {
    const applying = limitsOf(request).filter((limit) => limit !== undefined);
    if (applying.length === 0) return done();
    checkAll(request, reply, applying, done);
  });
  if (loginsByName !== undefined) {
    app.addHook("preHandler", (request, reply, done) => {
      if (request.method !== "POST" || request.routeOptions.url !== login || loginName(request.body) === "") return done();
      checkAll(request, reply, [loginsByName], done);
    });
  }
}

/** Counts the request against each limit in turn; the first one past its limit answers 429. */
function checkAll(request: FastifyRequest, reply: FastifyReply, applying: Limit[], done: (error?: Error) => void): void {
  const [limit, ...rest] = applying;
  if (limit === undefined) return done();
  limit.check(request).then((state) => {
    if (state.isAllowed || !state.isExceeded) return checkAll(request, reply, rest, done);
    const seconds = Math.max(1, state.ttlInSeconds);
    void sendProblem(request, reply, "rate-limited", limit.detail(seconds), { retryAfterSeconds: seconds });
  }, done);
}
