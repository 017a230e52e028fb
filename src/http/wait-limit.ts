import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { sendProblem } from "./problem-details.js";

/** The route option that marks a request that may be held open: a long poll or a stream. */
export const WAITS = { waits: true } as const;

/** The `Retry-After` of a refused wait: one of the address's waits usually ends well within it. */
const RETRY_SECONDS = 1;

/**
 * The key an address is counted under: an IPv6 address by its /64 (one host usually holds the whole
 * prefix, as the rate limits count it), an IPv4-mapped one as IPv4, IPv4 as it is.
 */
export function addressKey(ip: string): string {
  const bare = ip.split("%")[0] ?? ip;
  if (!bare.includes(":")) return bare;
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(bare)) return bare.slice(7);
  const [head = "", tail] = bare.split("::");
  const front = head === "" ? [] : head.split(":");
  const back = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}

/**
 * Bounds the requests one client address holds open at once on routes marked {@link WAITS} (the
 * change feeds): past `max`, 429 `rate-limited` with `Retry-After: 1`, before any waiting starts.
 * A request counts from its arrival until its answer is sent or its connection closes. 0 is off.
 * Only the waits are counted: a held request costs a socket and memory, not CPU.
 */
export function limitWaits(app: FastifyInstance, max: number): void {
  if (max === 0) return;
  const waiting = new Map<string, number>();
  app.addHook("onRequest", (request, reply, done) => {
    const config = request.routeOptions.config as { waits?: boolean } | undefined;
    if (config?.waits !== true || request.ip === undefined) return done();
    const key = addressKey(request.ip);
    const count = waiting.get(key) ?? 0;
    if (count >= max) {
      void sendProblem(request, reply, "rate-limited", `more than ${max} waiting requests at once from this address; retry in ${RETRY_SECONDS} s`, {
        retryAfterSeconds: RETRY_SECONDS,
      });
      return;
    }
    waiting.set(key, count + 1);
    // "close" comes once per response, whether it was sent or the client went away first.
    reply.raw.on("close", () => {
      const left = (waiting.get(key) ?? 1) - 1;
      if (left <= 0) waiting.delete(key);
      else waiting.set(key, left);
    });
    done();
  });
}

/** The connections one address may hold beyond twice its waits: its other requests' keep-alive sockets. */
const SPARE_CONNECTIONS = 64;

/**
 * Bounds the connections one client address holds open at once to twice `waits` (its long polls and
 * as many other sockets) plus {@link SPARE_CONNECTIONS}: past that a new connection is closed as it
 * is accepted, before anything on it is read. Each held socket costs a file descriptor, and thousands
 * of requests refused one by one (429) still cost the event loop their parsing. Off with `waits` 0,
 * and when the service believes a proxy (`server.trust-proxy`): every connection then comes from the
 * proxy, which must limit them itself (deploy/nginx.conf does).
 */
export function limitConnections(app: FastifyInstance, waits: number, behindProxy: boolean): void {
  if (waits === 0 || behindProxy) return;
  const max = waits * 2 + SPARE_CONNECTIONS;
  const open = new Map<string, number>();
  app.server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return;
    const key = addressKey(address);
    const count = open.get(key) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.on("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
