import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from "fastify";
import cors from "@fastify/cors";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Composition } from "../composition.js";
import { renderError, sendProblem } from "./problem-details.js";
import { compileValidator } from "./validator.js";
import { registerOpenApi } from "./openapi.js";
import { closeConnectionsOnShutdown } from "./connection-closer.js";
import { rateLimits } from "./rate-limits.js";
import { limitConnections, limitWaits } from "./wait-limit.js";
import { answerClientError } from "./client-error.js";
import { documentBodyBytes, parseJsonBodies, SMALL_BODY_BYTES } from "./json-bodies.js";
import { operationRoutes } from "./operations.js";
import { requestIdOf } from "./request-id.js";
import { changeRoutes } from "./routes/changes.js";
import { contentRoutes } from "./routes/content.js";
import { documentRoutes } from "./routes/documents.js";
import { EventStreams } from "./routes/event-stream.js";
import { eventRoutes } from "./routes/events.js";
import { exportRoutes } from "./routes/export.js";
import { infoRoutes, type ServiceIdentity } from "./routes/info.js";
import { presenceRoutes } from "./routes/presence.js";
import { readLinkRoutes } from "./routes/read-links.js";
import { trackerRoutes } from "./routes/tracker.js";
import { DEFAULT_WEB_ROOT, webRoutes } from "./routes/web.js";

export const API_PREFIX = "/api/v1";

/** What the app is built from: the wired service (src/composition.ts), its identity and logger. */
export interface AppDependencies {
  composition: Composition;
  identity: ServiceIdentity;
  /** A pino logger or Fastify's logger options; `false` for silence. */
  logger?: FastifyServerOptions["loggerInstance"] | boolean;
  /** The built editor page (default: dist/web of this checkout); a folder without it makes `/` a 503. */
  webRoot?: string;
}

/** The headers that must never reach a log line. */
export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers["x-tracker-token"]', "req.body", "res.body"];

/**
 * Builds the Fastify app with every route on a composed service; it wires nothing of its own and
 * never listens (server.ts does).
 */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { composition } = deps;
  const { config, store, services, metrics, tracker } = composition;
  const logging =
    typeof deps.logger === "object" ? { loggerInstance: deps.logger } : { logger: deps.logger === true ? { redact: REDACTED_PATHS } : false };
  const app = Fastify({
    ...logging,
    // One line per request instead of two, written by src/http/operations.ts.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.server.trustProxy,
    // A few KiB for every route but those that carry a document's text (src/http/json-bodies.ts).
    bodyLimit: SMALL_BODY_BYTES,
    // A request's headers and body must arrive within the request timeout, or Node answers it 408
    // through answerClientError and closes the connection; a held long poll arrived long before.
    // Node looks for late requests every connectionsCheckingInterval (30 s by default): a second,
    // so that the timeout holds to about a second.
    requestTimeout: config.server.requestTimeoutSeconds * 1000,
    http: { connectionsCheckingInterval: 1000, headersTimeout: config.server.requestTimeoutSeconds * 1000 },
    genReqId: requestIdOf,
    routerOptions: { maxParamLength: 200 },
    // A request during the drain gets a problem+json 503 from src/http/connection-closer.ts instead.
    return503OnClosing: false,
    // Errors the router raises before any route runs (a broken percent-encoding, an over-long
    // path segment) are client errors too, and leave as problem+json like every other.
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, request, reply) => {
      void sendProblem(request, reply, "invalid-request", `the request path cannot be read: ${error.message}`, { status: 400 });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  parseJsonBodies(app);
  app.setValidatorCompiler(compileValidator);
  operationRoutes(app, { store, metrics });
  closeConnectionsOnShutdown(app);
  rateLimits(app, config.rateLimit, API_PREFIX, (id) => composition.services.texts.knownLength(id));
  limitWaits(app, config.rateLimit.waitsPerAddress);
  limitConnections(app, config.rateLimit.waitsPerAddress, config.server.trustProxy !== false);
  // A UUID names one document however its hex digits are cased.
  // Hooks on every request take a callback rather than being async: no promise per request and hook.
  app.addHook("preHandler", (request, _reply, done) => {
    const params = request.params as { documentId?: string } | undefined;
    if (params?.documentId) params.documentId = params.documentId.toLowerCase();
    done();
  });
  app.setErrorHandler(renderError);
  app.setNotFoundHandler((request, reply) => sendProblem(request, reply, "route-not-found", `no route ${request.method} ${request.url.split("?")[0]}`));
  app.addHook("onSend", (request, reply, payload, done) => {
    void reply.header("x-request-id", request.id);
    // A browser must take an answer for its declared type only: a document's text in a JSON body is
    // never sniffed into HTML or script, whichever way the answer is opened.
    void reply.header("x-content-type-options", "nosniff");
    done(null, payload);
  });

  if (config.cors.origins.length > 0) {
    // @fastify/cors answers an OPTIONS request that is not a preflight (no Origin or no
    // Access-Control-Request-Method) with a text/plain 400; this one is problem+json like every error.
    app.addHook("onRequest", async (request, reply) => {
      if (request.method !== "OPTIONS") return;
      if (request.headers.origin && request.headers["access-control-request-method"]) return;
      return sendProblem(request, reply, "invalid-request", "OPTIONS is only a CORS preflight: it needs Origin and Access-Control-Request-Method");
    });
    await app.register(cors, {
      origin: config.cors.origins.includes("*") ? true : config.cors.origins,
      methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      allowedHeaders: ["Content-Type", "X-Tracker-Token", "Authorization", "X-Request-Id"],
      exposedHeaders: ["Retry-After", "X-Request-Id", "Content-Disposition"],
      maxAge: 600,
    });
  }

  // The OpenAPI document and its browsable view (src/http/openapi.ts, docs/openapi.md).
  await registerOpenApi(app, API_PREFIX);

  const { documents, patcher, feed, listAccess } = services;
  // Each events route shares frames among its own streams only (src/http/routes/event-stream.ts).
  const documentStreams = new EventStreams({ clock: composition.clock });
  const readStreams = new EventStreams({ clock: composition.clock });
  // Open event streams end at once (a client reconnects, with Last-Event-ID), before the hub closes;
  // waiting feed requests get their 204 at once; then Fastify lets in-flight requests finish.
  app.addHook("preClose", async () => {
    documentStreams.close();
    readStreams.close();
    // Returned, not dropped: a quiesce that returns a promise holds the shutdown until it settles.
    return composition.quiesce();
  });
  app.addHook("onReady", async () => composition.start());
  app.addHook("onClose", async () => composition.close());

  await app.register(
    async (api) => {
      api.get("/openapi.json", { schema: { hide: true } }, () => app.swagger());
      await api.register(infoRoutes, { identity: deps.identity, tracker: config.tracker });
      const bodyLimit = documentBodyBytes(config.documents);
      await api.register(documentRoutes, { documents, listAccess, bodyLimit });
      await api.register(contentRoutes, { patcher, bodyLimit });
      await api.register(changeRoutes, { feed });
      await api.register(readLinkRoutes, { readLinks: services.readLinks });
      await api.register(presenceRoutes, { presence: services.presence, readLinks: services.readLinks });
      await api.register(eventRoutes, { feed, readLinks: services.readLinks, presence: services.presence, documentStreams, readStreams });
      await api.register(exportRoutes, { documents, readLinks: services.readLinks });
      await api.register(trackerRoutes, { tracker });
    },
    { prefix: API_PREFIX },
  );
  await app.register(webRoutes, { root: deps.webRoot ?? DEFAULT_WEB_ROOT });
  return app;
}
