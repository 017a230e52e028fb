import type { FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { ServiceError } from "../../service/service-error.js";
import type { TaigaClient } from "../../tracker/taiga-client.js";
import { MAX_TRACKER_TOKEN, TRACKER_TOKEN_PATTERN } from "../../api/tracker.js";
import {
  authRoute,
  createStoryRoute,
  createTaskRoute,
  projectsRoute,
  readStoryRoute,
  readTaskRoute,
  storyStatusesRoute,
  taskStatusesRoute,
  writeStoryStatusRoute,
  writeTaskStatusRoute,
} from "./tracker.route-schemas.js";

export interface TrackerRouteOptions {
  /** The configured tracker; undefined when `service.tracker.api-url` is not set (every route: 503). */
  tracker: TaigaClient | undefined;
}

const notConfigured = () => new ServiceError("tracker-not-configured", "no ticket tracker is configured on this service");

/**
 * The narrow tracker proxy (docs/interface.md#tracker-proxy, docs/taiga.md). The order of checks is
 * fixed: no tracker → 503, then the token (401 missing, 400 too long), then the body and parameters
 * (400). The first two run in onRequest hooks, before the body is even parsed.
 */
export const trackerRoutes: FastifyPluginAsync<TrackerRouteOptions> = (fastify, { tracker }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const client = (): TaigaClient => {
    if (tracker === undefined) throw notConfigured();
    return tracker;
  };
  app.addHook("onRequest", (_request, _reply, done) => done(tracker === undefined ? notConfigured() : undefined));
  const withToken = { onRequest: requireToken };

  app.post("/tracker/auth", { schema: authRoute }, (request) => client().login(request.body));

  app.get("/tracker/projects", { ...withToken, schema: projectsRoute }, (request) =>
    client().listProjects(request.headers["x-tracker-token"], request.query.member),
  );

  app.post("/tracker/userstories", { ...withToken, schema: createStoryRoute }, async (request, reply) =>
    reply.code(201).send(await client().createStory(request.headers["x-tracker-token"], request.body)),
  );

  app.post("/tracker/tasks", { ...withToken, schema: createTaskRoute }, async (request, reply) =>
    reply.code(201).send(await client().createTask(request.headers["x-tracker-token"], request.body)),
  );

  const kinds = [
    { kind: "userstories", read: readStoryRoute, write: writeStoryStatusRoute, statuses: storyStatusesRoute, statusPath: "userstory-statuses" },
    { kind: "tasks", read: readTaskRoute, write: writeTaskStatusRoute, statuses: taskStatusesRoute, statusPath: "task-statuses" },
  ] as const;

  for (const { kind, read, write, statuses, statusPath } of kinds) {
    app.get(`/tracker/${kind}/:ref`, { ...withToken, schema: read }, (request) =>
      client().readTicket(request.headers["x-tracker-token"], kind, request.query.slug, request.params.ref),
    );

    app.patch(`/tracker/${kind}/:ref/status`, { ...withToken, schema: write }, (request) =>
      client().changeTicketStatus(request.headers["x-tracker-token"], kind, request.query.slug, request.params.ref, request.body),
    );

    app.get(`/tracker/${statusPath}`, { ...withToken, schema: statuses }, (request) =>
      client().listStatuses(request.headers["x-tracker-token"], kind, request.query.slug),
    );
  }
  return Promise.resolve();
};

/**
 * 401 without a token, 400 for one longer than the limit or one that is no bare token (a space, as in
 * `Bearer …`, or a character no HTTP header to the tracker may carry); all before validation and any
 * upstream call.
 */
function requireToken(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const raw = request.headers["x-tracker-token"];
  const token = Array.isArray(raw) ? raw.join(", ") : raw;
  if (token === undefined || token === "") {
    done(new ServiceError("tracker-token-required", "send the tracker token from POST /tracker/auth in the X-Tracker-Token header"));
  } else if (token.length > MAX_TRACKER_TOKEN) {
    done(new ServiceError("invalid-request", `the X-Tracker-Token header is longer than ${MAX_TRACKER_TOKEN} characters`));
  } else if (!TRACKER_TOKEN_PATTERN.test(token)) {
    done(new ServiceError("invalid-request", "the X-Tracker-Token header must be the bare token: printable ASCII without spaces or a `Bearer ` prefix"));
  } else {
    done();
  }
}
