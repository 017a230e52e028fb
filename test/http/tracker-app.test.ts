import { expectTrackerProblem } from "../support/tracker-harness.js";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { REDACTED_PATHS } from "../../src/http/app.js";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";

interface OpenApiOperation {
  tags?: string[];
  summary?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: object }[];
  responses: Record<string, { $ref?: string } | undefined>;
  security?: Record<string, string[]>[];
}
interface OpenApi {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { securitySchemes: Record<string, object> };
}

describe("the tracker routes inside the real app", () => {
  let fake: FakeTaiga | undefined;
  let testApp: TestApp;
  afterEach(async () => {
    await testApp.close();
    await fake?.close();
    fake = undefined;
  });

  it("answers 503 with the default configuration, which has no tracker", async () => {
    testApp = await buildTestApp();

    const response = await testApp.app.inject({ method: "PATCH", url: "/api/v1/tracker/tasks/1/status?slug=x", payload: "{" });

    expectTrackerProblem(response, { code: "tracker-not-configured", detail: "no ticket tracker is configured on this service", instance: "/api/v1/tracker/tasks/1/status" });
  });

  it("documents the ten routes in the OpenAPI description with the token scheme and problem answers", async () => {
    testApp = await buildTestApp();

    const document = (await testApp.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json<OpenApi>();

    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith("/api/v1/tracker"))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, ...operation })));
    expect(operations.map((operation) => operation.name).sort()).toEqual([
      "GET /api/v1/tracker/projects",
      "GET /api/v1/tracker/task-statuses",
      "GET /api/v1/tracker/tasks/{ref}",
      "GET /api/v1/tracker/userstories/{ref}",
      "GET /api/v1/tracker/userstory-statuses",
      "PATCH /api/v1/tracker/tasks/{ref}/status",
      "PATCH /api/v1/tracker/userstories/{ref}/status",
      "POST /api/v1/tracker/auth",
      "POST /api/v1/tracker/tasks",
      "POST /api/v1/tracker/userstories",
    ]);
    expect(document.components.securitySchemes.trackerToken).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "X-Tracker-Token" }));
    for (const operation of operations) {
      expect(operation.tags).toEqual(["tracker"]);
      expect(operation.summary).toBeTruthy();
      expect(operation.responses["503"]).toEqual({ $ref: "#/components/responses/TrackerNotConfigured" });
      // The token is the trackerToken scheme's header, never a parameter of its own.
      expect(operation.parameters?.filter((parameter) => parameter.in === "header") ?? []).toEqual([]);
      if (operation.name === "POST /api/v1/tracker/auth") expect(operation.security).toEqual([]);
      else expect(operation.security).toEqual([{ trackerToken: [] }]);
    }
  });

  it("never writes the login password or the tracker token into the log", async () => {
    fake = await FakeTaiga.start();
    const apiUrl = fake.apiUrl;
    const password = "Log-Me-Never-9f3b1c";
    fake.addUser({ username: "alice", password, fullName: "Alice Liddell" });
    const output: string[] = [];
    const logger = pino({ level: "trace", redact: REDACTED_PATHS }, { write: (line: string) => void output.push(line) });
    testApp = await buildTestApp({
      logger,
      config: (config) => {
        config.tracker.apiUrl = apiUrl;
        config.tracker.loginType = "normal";
      },
    });
    const { app } = testApp;

    const login = await app.inject({ method: "POST", url: "/api/v1/tracker/auth", payload: { username: "alice", password } });
    expect(login.statusCode).toBe(200);
    const token = login.json<{ authToken: string }>().authToken;
    const project = fake.addProject({ name: "Folio", slug: "folio", members: [fake.users[0]!] });
    fake.addStory({ project, subject: "Login page" });
    const read = await app.inject({ method: "GET", url: "/api/v1/tracker/userstories/1?slug=folio", headers: { "x-tracker-token": token } });
    expect(read.statusCode).toBe(200);
    const rejected = await app.inject({ method: "POST", url: "/api/v1/tracker/auth", payload: { username: "alice", password: `${password}-typo` } });
    expect(rejected.statusCode).toBe(400);
    fake.interfere("server-error");
    const failed = await app.inject({ method: "GET", url: "/api/v1/tracker/task-statuses?slug=folio", headers: { "x-tracker-token": token } });
    expect(failed.statusCode).toBe(502);

    const log = output.join("");
    expect(output.length).toBeGreaterThanOrEqual(8);
    expect(log).toContain('"route":"/api/v1/tracker/auth"');
    expect(log).toContain('"route":"/api/v1/tracker/userstories/:ref"');
    expect(log).not.toContain(password);
    expect(log).not.toContain(token);
  });
});
