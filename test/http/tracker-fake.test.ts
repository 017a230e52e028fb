import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeTaiga } from "../../src/demo/fake-taiga.js";

/** The fake Taiga itself behaves as docs/taiga.md describes, so the proxy tests mean something. */
describe("the fake Taiga", () => {
  let fake: FakeTaiga;
  let token: string;
  beforeEach(async () => {
    fake = await FakeTaiga.start();
    const alice = fake.addUser({ username: "alice", password: "pw" });
    const project = fake.addProject({ name: "Folio", slug: "folio", members: [alice] });
    fake.addStory({ project, subject: "Story" });
    fake.addTask({ project, subject: "Task" });
    token = fake.issueToken(alice);
  });
  afterEach(async () => fake.close());

  async function call(path: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${fake.apiUrl}${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as unknown };
  }

  it("answers a trailing slash with Django's HTML 404", async () => {
    const response = await call("/projects/", { token });

    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.text).toContain("<h1>Not Found</h1>");
  });

  it("rejects an unknown token with token_not_valid and WWW-Authenticate, even on login", async () => {
    const response = await call("/auth", { method: "POST", token: "garbage", body: { type: "normal", username: "alice", password: "pw" } });

    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="api"');
    expect(response.json()).toEqual({
      detail: "Given token not valid for any token type",
      code: "token_not_valid",
      messages: [{ token_class: "AccessToken", token_type: "access", message: "Token is invalid or expired" }],
    });
  });

  it("answers an anonymous by_slug with 401 NotAuthenticated and an authenticated unknown slug with 404", async () => {
    const anonymous = await call("/projects/by_slug?slug=nope");
    const known = await call("/projects/by_slug?slug=nope", { token });

    expect(anonymous.status).toBe(401);
    expect(anonymous.json()).toEqual({ _error_message: "Authentication credentials were not provided.", _error_type: "taiga.base.exceptions.NotAuthenticated" });
    expect(known.status).toBe(404);
    expect(known.json()).toEqual({ _error_message: "" });
  });

  it("answers by_ref without ref with a bare JSON string and refs of the other type with 404", async () => {
    const project = fake.projects[0]!.id;

    const missing = await call(`/userstories/by_ref?project=${project}`, { token });
    const task = await call(`/userstories/by_ref?project=${project}&ref=2`, { token });
    const story = await call(`/userstories/by_ref?project=${project}&ref=1`, { token });

    expect(missing.status).toBe(400);
    expect(missing.json()).toBe("ref param is needed");
    expect(task.status).toBe(404);
    expect(task.json()).toEqual({ _error_message: "No UserStory matches the given query." });
    expect(story.json()).toMatchObject({ ref: 1, version: 1, assigned_to_extra_info: null, neighbors: { previous: null, next: null } });
  });

  it("lower-cases the login type, registers only its plugins and answers missing fields with a field dict", async () => {
    const ldap = await call("/auth", { method: "POST", body: { type: "LDAP", username: "alice", password: "pw" } });
    const github = await call("/auth", { method: "POST", body: { type: "github", username: "alice", password: "pw" } });
    const empty = await call("/auth", { method: "POST", body: { type: "normal", username: "" } });

    expect(ldap.status).toBe(200);
    expect(ldap.json()).toMatchObject({ username: "alice", full_name: "", full_name_display: "alice", refresh: expect.any(String) as unknown });
    expect(github.json()).toEqual({ _error_message: "invalid login type", _error_type: "taiga.base.exceptions.BadRequest" });
    expect(empty.json()).toEqual({ username: ["This field is required."], password: ["This field is required."] });
  });

  it("creates with 201, the shared ref sequence and version 1; anonymous creation is 401", async () => {
    const project = fake.projects[0]!;

    const created = await call("/tasks", { method: "POST", token, body: { project: project.id, subject: "Third" } });
    const anonymous = await call("/userstories", { method: "POST", body: { project: project.id, subject: "x" } });
    const invalid = await call("/userstories", { method: "POST", token, body: { project: "abc" } });

    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ ref: 3, version: 1, status: project.statuses.tasks[0]!.id, user_story: null });
    expect(anonymous.status).toBe(401);
    expect(invalid.json()).toEqual({ project: ["Incorrect type. Expected pk value, received str."], subject: ["This field is required."] });
  });

  it("checks the version on PATCH: missing, from the future, stale on the same field", async () => {
    const story = fake.tickets[0]!;
    const [, second, third] = fake.projects[0]!.statuses.userstories;

    const missing = await call(`/userstories/${story.id}`, { method: "PATCH", token, body: { status: second!.id } });
    const future = await call(`/userstories/${story.id}`, { method: "PATCH", token, body: { status: second!.id, version: 2 } });
    const ok = await call(`/userstories/${story.id}`, { method: "PATCH", token, body: { status: second!.id, version: 1 } });
    const stale = await call(`/userstories/${story.id}`, { method: "PATCH", token, body: { status: third!.id, version: 1 } });

    expect(missing.json()).toEqual({ version: "The version parameter is not valid" });
    expect(future.json()).toEqual({ version: "The version parameter is not valid" });
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ version: 2, status_extra_info: { name: "In progress", is_closed: false } });
    expect(stale.status).toBe(400);
    expect(stale.json()).toEqual({ version: "The version doesn't match with the current one" });
  });

  it("lists no statuses of a project the caller cannot see, and paginates status lists", async () => {
    const hidden = fake.addProject({ name: "Hidden", slug: "hidden" });

    const invisible = await call(`/task-statuses?project=${hidden.id}`, { token });
    const paged = await call(`/task-statuses?project=${fake.projects[0]!.id}`, { token });

    expect(invisible.status).toBe(200);
    expect(invisible.json()).toEqual([]);
    expect(paged.headers.get("x-paginated")).toBe("true");
    expect(paged.headers.get("x-pagination-count")).toBe("3");
  });
});
