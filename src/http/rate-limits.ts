import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Config } from "../config/config.js";
import { sendProblem } from "./problem-details.js";
import { addressKey } from "./wait-limit.js";
import { WindowLimit } from "./window-limit.js";

export { REMEMBERED_ADDRESSES } from "./window-limit.js";

/**
 * What one unit of a read or write limit stands for in bytes of the document a request names (or a
 * read's answer): a request on a larger one counts one unit per 64 KiB. A request's work grows with
 * the text it moves (a patch of a 5 MiB document joins and hashes all of it), so a limit counts the
 * work, not only the requests (docs/api.md, "Bounds").
 */
export const COST_UNIT_BYTES = 64 * 1024;

/**
 * What one unit of the write limit stands for in bytes of a request's body: a whole text sent
 * (a create or a replace) is parsed, diffed, hashed, compressed and written on the event loop, a
 * tenth of a second or more per MiB on a loaded machine, so a body counts a unit per KiB. A
 * megabyte's replace takes 1,024 units, five seconds' worth at the default, and its sender waits
 * for the windows it used; an editor's patch (a few hundred bytes) is one unit.
 */
export const BODY_UNIT_BYTES = 1024;

/** The presence routes (src/http/routes/presence.ts): by the document's id or a read id, with or without a client id. */
const PRESENCE_ROUTE = /\/presence(\/:clientId)?$/;

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const READ_METHODS = new Set(["GET", "HEAD"]);

/** The user name a tracker login is counted under: case and Unicode form do not make a new one. */
export function loginName(body: unknown): string {
  const name = (body as { username?: unknown } | null)?.username;
  return typeof name === "string" ? name.normalize("NFC").toLowerCase() : "";
}

interface Limit {
  window: WindowLimit;
  /** The problem's detail for a refused request. */
  detail: (retryAfterSeconds: number) => string;
}

/** How a request counted: what it took at arrival, for the charge of a larger answer. */
interface Counted {
  limit: Limit;
  key: string;
  cost: number;
}

const costOf = (bytes: number, unit = COST_UNIT_BYTES) => Math.max(1, Math.ceil(bytes / unit));

/**
 * Limits requests per client address (`request.ip`: the address after `server.trust-proxy`; an IPv6
 * client's whole /64, since one host holds that many addresses) and per instance, each limit a key
 * of its own (README, "Rate limits"):
 * - POST of the document collection by `creates-per-minute`;
 * - every other write under `apiPrefix` (whatever its path: new routes are covered as they are
 *   added) by `writes-per-second`, a write costing a unit per 64 KiB of its body or of the document
 *   it changes (as far as the head cache knows it; a presence update costs its body only);
 * - every read (GET, HEAD) under `apiPrefix` by `reads-per-second`, a unit per 64 KiB of the
 *   document it reads at arrival and of its answer afterwards; the tracker proxy's reads, which
 *   each cost an upstream call, by `tracker-reads-per-second` as well;
 * - tracker logins by `tracker-logins-per-minute`, per address and, once the body is read, per
 *   user name, since guesses at one account may come from many addresses.
 * Past a limit the request is answered 429 `rate-limited` with `Retry-After` (before its body is
 * read, except for the per-name count of logins), so nothing is written and nothing goes upstream.
 * A limit of 0 is off.
 */
export function rateLimits(
  app: FastifyInstance,
  limits: Config["rateLimit"],
  apiPrefix: string,
  sizeOf: (documentId: string) => number | undefined = () => undefined,
): void {
  const limiter = (max: number, windowMs: number, detail: Limit["detail"]): Limit | undefined =>
    max === 0 ? undefined : { window: new WindowLimit(max, windowMs), detail };
  const perSecond = (what: string, max: number) => (seconds: number) => `more than ${max} ${what} in a second from this address; retry in ${seconds} s`;
  const loginsDetail = (whose: string) => (seconds: number) => `more than ${limits.trackerLoginsPerMinute} tracker logins in a minute ${whose}; retry in ${seconds} s`;
  const creates = limiter(limits.createsPerMinute, 60_000, (seconds) => `more than ${limits.createsPerMinute} documents created in a minute from this address; retry in ${seconds} s`);
  const writes = limiter(limits.writesPerSecond, 1000, perSecond("writes", limits.writesPerSecond));
  const reads = limiter(limits.readsPerSecond, 1000, perSecond("reads", limits.readsPerSecond));
  const trackerReads = limiter(limits.trackerReadsPerSecond, 1000, perSecond("tracker reads", limits.trackerReadsPerSecond));
  const logins = limiter(limits.trackerLoginsPerMinute, 60_000, loginsDetail("from this address"));
  const loginsByName = limiter(limits.trackerLoginsPerMinute, 60_000, loginsDetail("for this user name"));

  const collection = `${apiPrefix}/documents`;
  const trackerPrefix = `${apiPrefix}/tracker/`;
  const login = `${apiPrefix}/tracker/auth`;
  /** The limits a request counts against, in the order they are checked. */
  const limitsOf = (method: string, route: string): (Limit | undefined)[] => {
    if (READ_METHODS.has(method)) return route.startsWith(trackerPrefix) ? [reads, trackerReads] : [reads];
    if (!WRITE_METHODS.has(method)) return [];
    if (method === "POST" && route === collection) return [creates, writes];
    return method === "POST" && route === login ? [writes, logins] : [writes];
  };
  /** The units of a request's body. */
  const bodyCost = (request: FastifyRequest): number => {
    const length = Number(request.headers["content-length"] ?? 0);
    return costOf(Number.isFinite(length) ? length : 0, BODY_UNIT_BYTES);
  };
  /**
   * The arrival cost of a read or write: the size of the document it names, or of its body. A
   * presence request never touches the document's text: its body (or answer) is all it costs.
   */
  const arrivalCost = (request: FastifyRequest, route: string): number => {
    const id = PRESENCE_ROUTE.test(route) ? undefined : (request.params as { documentId?: string } | undefined)?.documentId;
    const document = id === undefined ? 0 : (sizeOf(id.toLowerCase()) ?? 0);
    return Math.max(costOf(document), bodyCost(request));
  };
  const counted = new WeakMap<FastifyRequest, Counted>();

  // A callback hook: requests under no limit pass without a promise.
  app.addHook("onRequest", (request, reply, done) => {
    const route = request.routeOptions.url;
    // An unknown route costs nothing (404). A request without an address has lost its connection
    // already (Node forgets the address of a closed socket): it can neither send a body nor get an answer.
    if (route === undefined || !route.startsWith(`${apiPrefix}/`) || request.ip === undefined) return done();
    const applying = limitsOf(request.method, route).filter((limit): limit is Limit => limit !== undefined);
    if (applying.length === 0) return done();
    const key = addressKey(request.ip);
    const creating = request.method === "POST" && route === collection;
    const cost = applying.includes(reads as Limit) || (applying.includes(writes as Limit) && !creating) ? arrivalCost(request, route) : 1;
    for (const limit of applying) {
      // A create counts against creates-per-minute once, and against the writes only by a body
      // larger than one unit: a big text is as much work to create as to replace.
      const units = limit === reads || (limit === writes && !creating) ? cost : limit === writes ? bodyCost(request) - 1 : 1;
      if (units === 0) continue;
      const seconds = limit.window.take(key, units);
      if (seconds !== undefined) {
        void sendProblem(request, reply, "rate-limited", limit.detail(seconds), { retryAfterSeconds: seconds });
        return;
      }
    }
    if (reads !== undefined && applying[0] === reads) counted.set(request, { limit: reads, key, cost });
    if (writes !== undefined && applying.includes(writes)) counted.set(request, { limit: writes, key, cost: creating ? bodyCost(request) - 1 : cost });
    done();
  });
  // A write whose body was refused before it was parsed (too deep, too large, not JSON) cost the
  // reading of it, not a whole text's work: it keeps a unit per 64 KiB, like a read, and the rest
  // of its body's weight is given back.
  const parsed = new WeakSet<FastifyRequest>();
  if (writes !== undefined) {
    app.addHook("preHandler", (request, _reply, done) => {
      parsed.add(request);
      done();
    });
    app.addHook("onResponse", (request, _reply, done) => {
      const write = counted.get(request);
      if (write?.limit === writes && !parsed.has(request)) {
        const length = Number(request.headers["content-length"] ?? 0);
        const read = costOf(Number.isFinite(length) ? length : 0);
        if (write.cost > read) writes.window.charge(write.key, read - write.cost);
      }
      done();
    });
  }
  // A read whose answer was larger than what it was counted at pays the rest afterwards: its
  // address's next reads wait for a later window.
  if (reads !== undefined) {
    app.addHook("onResponse", (request, reply, done) => {
      const read = counted.get(request);
      if (read?.limit !== reads) return done();
      const sent = Number(reply.getHeader("content-length") ?? 0);
      if (Number.isFinite(sent)) read.limit.window.charge(read.key, costOf(sent) - read.cost);
      done();
    });
  }
  if (loginsByName !== undefined) {
    app.addHook("preHandler", (request, reply, done) => {
      const name = loginName(request.body);
      if (request.method !== "POST" || request.routeOptions.url !== login || name === "") return done();
      const seconds = loginsByName.window.take(name);
      if (seconds === undefined) return done();
      void sendProblem(request, reply, "rate-limited", loginsByName.detail(seconds), { retryAfterSeconds: seconds });
    });
  }
}
