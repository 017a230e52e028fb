import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppMetrics } from "../metrics/metrics.js";
import { UNMATCHED_ROUTE } from "../metrics/metrics.js";
import type { Store } from "../storage/store.js";
import { PROBLEM_TYPE_BASE, problemOf, sendProblem } from "./problem-details.js";

/** How long the readiness probe waits for the store before it answers 503. */
const READY_TIMEOUT_MS = 2000;

/**
 * What an operator and a load balancer use, outside `/api/v1` and left out of the OpenAPI
 * document (they are not the client interface): `/health/live`, `/health/ready`, `/metrics`.
 * Also the one log line per request.
 */
export function operationRoutes(app: FastifyInstance, deps: { store: Store; metrics: AppMetrics | undefined }): void {
  const { store, metrics } = deps;
  // Requests that arrive while the instance shuts down (the readiness probe included, so the load
  // balancer takes it out) are refused with a problem+json 503 by src/http/connection-closer.ts.
  // At debug only: with the line written at the answer, it shows which requests hang (or wait).
  // The level is fixed at start, so the hook exists only when it writes.
  if (levelEnabled(app.log.level, "debug")) {
    app.addHook("onRequest", (request, _reply, done) => {
      request.log.debug({ method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE }, "request received");
      done();
    });
  }

  // A callback, not an async hook: no promise per request. The line is built only when it is written.
  const logsInfo = levelEnabled(app.log.level, "info");
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const seconds = reply.elapsedTime / 1000;
    metrics?.request(request.method, route, reply.statusCode, seconds);
    if (reply.statusCode >= 500 || logsInfo) logRequest(request, reply, route);
    done();
  });

  app.get("/health/live", { schema: { hide: true } }, async () => ({ status: "live" }));
  app.get("/health/ready", { schema: { hide: true } }, async (request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), READY_TIMEOUT_MS)));
    try {
      const answered = await Promise.race([store.ping(), late]);
      if (answered === "late") return notReady(request, reply, `the store did not answer within ${READY_TIMEOUT_MS} ms`);
    } catch (error) {
      request.log.warn({ err: error }, "not ready: the store cannot serve");
      return notReady(request, reply, "the store cannot serve now");
    } finally {
      clearTimeout(timer);
    }
    return { status: "ready" };
  });
  if (metrics) {
    app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
      const { contentType, body } = await metrics.render();
      return reply.type(contentType).send(body);
    });
  }
}

/** The levels in pino's order; a logger at `level` writes lines at `at` and above ("silent" writes none). */
const LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"];
function levelEnabled(level: string, at: string): boolean {
  const index = LEVELS.indexOf(level);
  return index >= 0 && index <= LEVELS.indexOf(at);
}

function notReady(request: FastifyRequest, reply: FastifyReply, detail: string): FastifyReply {
  return sendProblem(request, reply, "storage-unavailable", detail, { retryAfterSeconds: 5 });
}

/**
 * One line per request, instead of Fastify's two: the request id (`reqId`, from a sane
 * X-Request-Id or made up), method, route template, status, duration, the client address (the
 * proxy's, unless server.trust-proxy believes its X-Forwarded-For) and, for problems, the problem
 * `type`. Never the path: a document's id is its link, and whoever holds the link may edit.
 */
function logRequest(request: FastifyRequest, reply: FastifyReply, route: string): void {
  const status = reply.statusCode;
  const line = {
    method: request.method,
    route,
    status,
    durationMs: Math.round(reply.elapsedTime * 10) / 10,
    remoteAddress: request.ip,
    ...(problemOf(reply) !== undefined ? { problemType: PROBLEM_TYPE_BASE + problemOf(reply) } : {}),
  };
  if (status >= 500) request.log.warn(line, "request");
  else request.log.info(line, "request");
}
