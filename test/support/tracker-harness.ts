import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, expect } from "vitest";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { renderError } from "../../src/http/problem-details.js";
import { trackerRoutes } from "../../src/http/routes/tracker.js";
import { compileValidator } from "../../src/http/validator.js";
import { TaigaClient } from "../../src/tracker/taiga-client.js";
import { FakeTaiga, type FakeProject, type FakeStatus, type FakeTicket, type FakeUser } from "../../src/demo/fake-taiga.js";

export const JSON_TYPE = "application/json; charset=utf-8";
export const PROBLEM_TYPE = "application/problem+json; charset=utf-8";

/** The tracker proxy's problem types, with their titles and usual statuses (written here, not imported: the test states them). */
const TRACKER_PROBLEMS = {
  "invalid-request": { title: "Invalid request", status: 400 },
  "tracker-token-required": { title: "Tracker token missing or expired", status: 401 },
  "tracker-credentials-rejected": { title: "Tracker credentials rejected", status: 400 },
  "tracker-rejected": { title: "Rejected by the tracker", status: 400 },
  "tracker-unavailable": { title: "Tracker unavailable", status: 502 },
  "tracker-not-configured": { title: "No tracker configured", status: 503 },
} as const;

/**
 * Asserts a whole problem answer of the tracker proxy: status, content type and every member of the
 * body. `status` defaults to the type's usual one (a passed-on tracker 4xx keeps its own).
 */
export function expectTrackerProblem(
  response: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  expected: { code: keyof typeof TRACKER_PROBLEMS; detail: string; instance: string; status?: number },
): void {
  const { title, status: usual } = TRACKER_PROBLEMS[expected.code];
  const status = expected.status ?? usual;
  expect({ status: response.statusCode, contentType: response.headers["content-type"], body: response.json() }).toEqual({
    status,
    contentType: PROBLEM_TYPE,
    body: { type: `urn:folio:problem:${expected.code}`, title, status, detail: expected.detail, instance: expected.instance },
  });
}

export interface TrackerHarness {
  app: FastifyInstance;
  fake: FakeTaiga;
  close(): Promise<void>;
}

/**
 * The tracker routes on a bare Fastify app with the service's validator and error renderer, talking
 * to a fresh fake Taiga over real HTTP on 127.0.0.1. `apiUrl` points the client elsewhere (a closed
 * port); `tracker: false` builds the routes without a tracker.
 */
export async function startTrackerHarness(options: { timeoutMs?: number; loginType?: string; apiUrl?: string; tracker?: boolean } = {}): Promise<TrackerHarness> {
  const fake = await FakeTaiga.start();
  const tracker =
    options.tracker === false
      ? undefined
      : new TaigaClient({ apiUrl: options.apiUrl ?? fake.apiUrl, loginType: options.loginType ?? "ldap", timeoutMs: options.timeoutMs ?? 5000 });
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(compileValidator);
  app.setErrorHandler(renderError);
  await app.register(trackerRoutes, { prefix: "/api/v1", tracker });
  await app.ready();
  return {
    app,
    fake,
    async close() {
      await app.close();
      await tracker?.close();
      await fake.close();
    },
  };
}

/** A small tracker world: one member with a token, a project with a story, a task and a stranger's project. */
export interface TrackerWorld {
  alice: FakeUser;
  token: string;
  project: FakeProject;
  story: FakeTicket;
  task: FakeTicket;
  inProgress: FakeStatus;
  done: FakeStatus;
  other: FakeProject;
}

export function seedWorld(fake: FakeTaiga): TrackerWorld {
  const alice = fake.addUser({ username: "alice", password: "s3cret-Pa55word", fullName: "Alice Liddell" });
  const bob = fake.addUser({ username: "bob", password: "bobs-password" });
  const project = fake.addProject({ name: "Folio", slug: "alice-folio", members: [alice, bob] });
  const other = fake.addProject({ name: "Secret", slug: "bob-secret", members: [bob] });
  const [, inProgress, done] = project.statuses.userstories;
  const story = fake.addStory({ project, subject: "Login page", status: inProgress, assignedTo: bob });
  const task = fake.addTask({ project, subject: "Write the form", userStory: story });
  return { alice, token: fake.issueToken(alice), project, story, task, inProgress: inProgress!, done: done!, other };
}

/** The seeded story (ref 1, "Login page", assigned to bob) as the tracker routes answer it, in the state given. */
export function storyAnswer(world: TrackerWorld, state: { status: string; statusClosed: boolean; version: number }) {
  return { id: world.story.id, ref: 1, subject: "Login page", status: state.status, statusClosed: state.statusClosed, assignee: "bob", version: state.version };
}

/**
 * A fresh harness with {@link seedWorld} for each test of the calling `describe`, closed after it.
 * The object returned stands for the current test's: `t.app`, `t.fake`, `t.world` inside a test.
 */
export function trackerWorldPerTest(): { readonly app: FastifyInstance; readonly fake: FakeTaiga; readonly world: TrackerWorld } {
  let current: { harness: TrackerHarness; world: TrackerWorld } | undefined;
  beforeEach(async () => {
    const harness = await startTrackerHarness();
    current = { harness, world: seedWorld(harness.fake) };
  });
  afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.harness.close();
  });
  const now = () => {
    if (current === undefined) throw new Error("trackerWorldPerTest: the harness exists only while a test runs");
    return current;
  };
  return {
    get app() {
      return now().harness.app;
    },
    get fake() {
      return now().harness.fake;
    },
    get world() {
      return now().world;
    },
  };
}
