import rateLimit, { type CreateRateLimitOptions } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Config } from "../config/config.js";
import { sendProblem } from "./problem-details.js";

/**
 * The client addresses each limit remembers. Past this, the address seen least recently is
 * forgotten (its count starts again), so memory stays bounded however many addresses call; an
 * address that keeps sending is always recent and never forgotten. 200–300 bytes an address, so
 * at most about 3 MB a limit (docs/operations.md, "Rate limits").
 */
export const REMEMBERED_ADDRESSES = 10_000;

/** The methods that write; every route under the API prefix with one of them is limited. */
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

type Check = ReturnType<FastifyInstance["createRateLimit"]>;

interface Limit {
  check: Check;
  /** The problem's detail for a refused request. */
  detail: (retryAfterSeconds: number) => string;
}

/**
 * Limits writes per client address (`request.ip`: the address after `server.trust-proxy`; an IPv6
 * client's whole /64, since one host holds that many addresses) and per instance: POST of the
 * document collection by `creates-per-minute`, every other write under `apiPrefix` (whatever its
 * path: new routes are covered as they are added) by `writes-per-second`. Fixed windows: a window
 * starts with an address's first request and holds `max` requests. Past the limit the request is
 * answered 429 `rate-limited` with `Retry-After` before its body is read, so nothing is written.
 * A limit of 0 is off. Reads are never limited.
 */
export async function rateLimits(app: FastifyInstance, limits: Config["rateLimit"], apiPrefix: string): Promise<void> {
  const limiter = (max: number, timeWindow: number, detail: Limit["detail"]): Limit | undefined => {
    if (max === 0) return undefined;
    // `cache` sizes the store of this limit: the plugin passes every option on to it.
    const options: CreateRateLimitOptions & { cache: number } = { max, timeWindow, cache: REMEMBERED_ADDRESSES };
    return { check: app.createRateLimit(options), detail };
  };
  // Only the limiters are used (createRateLimit), so that all writes of an address share one count
  // whatever their route, and the answer is rendered like every other problem.
  await app.register(rateLimit, { global: false });
  const creates = limiter(
    limits.createsPerMinute,
    60_000,
    (seconds) => `more than ${limits.createsPerMinute} documents created in a minute from this address; retry in ${seconds} s`,
  );
  const writes = limiter(limits.writesPerSecond, 1000, (seconds) => `more than ${limits.writesPerSecond} writes in a second from this address; retry in ${seconds} s`);
  if (creates === undefined && writes === undefined) return;

  const collection = `${apiPrefix}/documents`;
  const limitOf = (request: FastifyRequest): Limit | undefined => {
    if (!WRITE_METHODS.has(request.method)) return undefined;
    const route = request.routeOptions.url;
    // An unknown route writes nothing (404). A request without an address has lost its connection
    // already (Node forgets the address of a closed socket): it can neither send a body nor get an answer.
    if (route === undefined || !route.startsWith(`${apiPrefix}/`) || request.ip === undefined) return undefined;
    return request.method === "POST" && route === collection ? creates : writes;
  };
  // A callback hook: reads and unlimited writes pass without a promise.
  app.addHook("onRequest", (request, reply, done) => {
    const limit = limitOf(request);
    if (limit === undefined) return done();
    limit.check(request).then((state) => {
      if (state.isAllowed || !state.isExceeded) return done();
      const seconds = Math.max(1, state.ttlInSeconds);
      void sendProblem(request, reply, "rate-limited", limit.detail(seconds), { retryAfterSeconds: seconds });
    }, done);
  });
}
