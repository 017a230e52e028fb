import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { sendProblem } from "./problem-details.js";

/** The `Retry-After` of a request refused while this instance shuts down: another instance, or this one restarted, can take it. */
const SHUTDOWN_RETRY_SECONDS = 1;

/** How long a connection opened during the drain may take to send its request. */
const LATE_CONNECTION_MS = 1000;

/**
 * Drains connections on shutdown without resetting any client:
 * - connections that carry no request (idle keep-alive ones, ones that never sent a request: Node's
 *   own idle closing misses those, so a load balancer's spare connection would hold the shutdown)
 *   are ended at once;
 * - every answer not yet sent says `Connection: close` and its connection ends after it, so no
 *   keep-alive client sends its next request on a socket that is about to close (it would get
 *   ECONNRESET; a load balancer that does not retry a PATCH shows the user a 502);
 * - a request that still arrives on an open connection during the drain is answered 503
 *   problem+json (`shutting-down`), also with `Connection: close`.
 * Every in-flight request still gets its answer.
 */
export function closeConnectionsOnShutdown(app: FastifyInstance): void {
  const inFlight = new Map<Socket, Set<ServerResponse>>();
  let closing = false;

  app.server.on("connection", (socket: Socket) => {
    inFlight.set(socket, new Set());
    // `on`, not `once`, here and below: each of these events comes once anyway, and `once` wraps
    // every listener in a bound function and its state, held for as long as the connection or the
    // request (an editor's long poll) is open.
    socket.on("close", () => inFlight.delete(socket));
    // Until the listener closes, a connection can still arrive during the drain: its request gets
    // the 503 below, but a connection that sends nothing must not hold the shutdown.
    if (closing) setTimeout(() => inFlight.get(socket)?.size === 0 && socket.destroy(), LATE_CONNECTION_MS).unref();
  });
  app.server.on("request", (request: { socket: Socket }, response: ServerResponse) => {
    const socket = request.socket;
    const responses = inFlight.get(socket) ?? new Set<ServerResponse>();
    inFlight.set(socket, responses);
    responses.add(response);
    if (closing) response.shouldKeepAlive = false;
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      responses.delete(response);
      if (closing && responses.size === 0) socket.end();
    };
    response.on("finish", finished);
    response.on("close", finished);
  });
  // Fastify's own answer to a request during close is a bare JSON 503; this one is problem+json.
  app.addHook("onRequest", (request, reply, done) => {
    if (!closing) return done();
    void reply.header("connection", "close");
    void sendProblem(request, reply, "shutting-down", "this instance is shutting down; retry", { retryAfterSeconds: SHUTDOWN_RETRY_SECONDS });
  });
  app.addHook("preClose", async () => {
    closing = true;
    for (const [socket, responses] of inFlight) {
      if (responses.size === 0) socket.destroy();
      // Not yet sent: Node writes `Connection: close` and ends the connection after the answer.
      else for (const response of responses) if (!response.headersSent) response.shouldKeepAlive = false;
    }
  });
}
