import { describe, expect, it } from "vitest";
import { ticketBody } from "../../src/demo/fake-taiga-bodies.js";
import { JSON_TYPE, expectTrackerProblem, storyAnswer, trackerWorldPerTest } from "../support/tracker-harness.js";

describe("tracker reads", () => {
  const t = trackerWorldPerTest();

  const get = (url: string, query: Record<string, string> = {}) =>
    t.app.inject({ method: "GET", url, query, headers: { "x-tracker-token": t.world.token } });

  function expectUpstreamBasics() {
    for (const request of t.fake.requests) {
      expect(request.method).toBe("GET");
      expect(request.headers.authorization).toBe(`Bearer ${t.world.token}`);
      expect(request.headers.accept).toBe("application/json");
    }
  }

  describe("GET /tracker/projects", () => {
    it("lists the member's projects, every page at once", async () => {
      const { fake } = t;
      for (let i = 0; i < 34; i += 1) fake.addProject({ name: `Extra ${String(i).padStart(2, "0")}`, slug: `extra-${i}`, members: [t.world.alice] });

      const response = await get("/api/v1/tracker/projects", { member: String(t.world.alice.id) });

      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe(JSON_TYPE);
      const projects = response.json<{ id: number; name: string; slug: string }[]>();
      expect(projects).toHaveLength(35);
      expect(projects[34]).toEqual({ id: t.world.project.id, name: "Folio", slug: "alice-folio" });
      expect(projects.map((project) => project.slug)).not.toContain("bob-secret");
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]).toMatchObject({ path: "/api/v1/projects", query: { member: String(t.world.alice.id) } });
      expect(fake.requests[0]!.headers["x-disable-pagination"]).toBe("True");
      expectUpstreamBasics();
    });

    it("is backed by a fake that paginates by 30 when the header is missing, as Taiga does", async () => {
      for (let i = 0; i < 34; i += 1) t.fake.addProject({ name: `Extra ${i}`, slug: `extra-${i}`, members: [t.world.alice] });

      const response = await fetch(`${t.fake.apiUrl}/projects?member=${t.world.alice.id}`, { headers: { authorization: `Bearer ${t.world.token}` } });

      expect(((await response.json()) as unknown[]).length).toBe(30);
      expect(response.headers.get("x-pagination-count")).toBe("35");
      expect(response.headers.get("x-pagination-next")).toContain("page=2");
    });

    it.each([
      ["missing", {}, "querystring.member: must have required property 'member'"],
      ["not a number", { member: "alice" }, "querystring.member: must be integer"],
    ])("answers 400 when member is %s, without asking the tracker", async (_name, query, detail) => {
      const response = await get("/api/v1/tracker/projects", query);

      expectTrackerProblem(response, { code: "invalid-request", detail, instance: "/api/v1/tracker/projects" });
      expect(t.fake.requests).toEqual([]);
    });
  });

  describe("GET /tracker/userstories/{ref} and /tracker/tasks/{ref}", () => {
    it("reads a story by slug and ref and maps its status, assignee and version", async () => {
      const response = await get("/api/v1/tracker/userstories/1", { slug: "alice-folio" });

      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe(JSON_TYPE);
      expect(response.json()).toEqual(storyAnswer(t.world, { status: "In progress", statusClosed: false, version: 1 }));
      const [bySlug, byRef] = t.fake.requests;
      expect(t.fake.requests).toHaveLength(2);
      expect(bySlug).toMatchObject({ path: "/api/v1/projects/by_slug", query: { slug: "alice-folio" } });
      expect(byRef).toMatchObject({ path: "/api/v1/userstories/by_ref", query: { project: String(t.world.project.id), ref: "1" } });
      expect(bySlug!.headers["x-disable-pagination"]).toBeUndefined();
      expectUpstreamBasics();
    });

    it("reuses kept-alive upstream connections from one request to the next", async () => {
      for (let i = 0; i < 5; i += 1) expect((await get("/api/v1/tracker/userstories/1", { slug: "alice-folio" })).statusCode).toBe(200);

      const ports = new Set(t.fake.requests.map((request) => request.remotePort));
      expect(t.fake.requests).toHaveLength(10);
      expect(ports.size).toBeLessThanOrEqual(2);
    });

    it("reads a task; nobody assigned leaves assignee out", async () => {
      const response = await get("/api/v1/tracker/tasks/2", { slug: "alice-folio" });

      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: t.world.task.id, ref: 2, subject: "Write the form", status: "New", statusClosed: false, version: 1 });
      expect(t.fake.requests[1]).toMatchObject({ path: "/api/v1/tasks/by_ref", query: { project: String(t.world.project.id), ref: "2" } });
    });

    it("takes statusClosed from the status, not from the story's own is_closed", async () => {
      const { fake } = t;
      const story = fake.addStory({ project: t.world.project, subject: "Done but open tasks", status: t.world.done });
      fake.addTask({ project: t.world.project, subject: "open", userStory: story });

      const response = await get(`/api/v1/tracker/userstories/${story.ref}`, { slug: "alice-folio" });

      expect(response.json()).toMatchObject({ status: "Done", statusClosed: true });
      expect(ticketBody(fake, story, false).is_closed).toBe(false);
    });

    it("passes on Taiga's 404 when the ref belongs to a task, not a story", async () => {
      const response = await get("/api/v1/tracker/userstories/2", { slug: "alice-folio" });

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "No UserStory matches the given query.", instance: "/api/v1/tracker/userstories/2", status: 404 });
    });

    it.each(["no-such-project", "bob-secret"])("answers 404 for the project %s that is unknown or hidden", async (slug) => {
      const response = await get("/api/v1/tracker/tasks/2", { slug });

      expectTrackerProblem(response, {
        code: "tracker-rejected",
        status: 404,
        detail: "the tracker has no project with this slug, or it is hidden from this user",
        instance: "/api/v1/tracker/tasks/2",
      });
      expect(t.fake.requests).toHaveLength(1);
    });

    it("sends a slug with &, / and ? as one URL-encoded query value", async () => {
      const slug = "we&you/them?x=1";
      const project = t.fake.addProject({ name: "Odd", slug, members: [t.world.alice] });
      t.fake.addStory({ project, subject: "Odd story" });

      const response = await get("/api/v1/tracker/userstories/1", { slug });

      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ ref: 1, subject: "Odd story" });
      const [bySlug] = t.fake.requests;
      expect(bySlug!.path).toBe("/api/v1/projects/by_slug");
      expect(bySlug!.search).toBe("slug=we%26you%2Fthem%3Fx%3D1");
      expect(bySlug!.query).toEqual({ slug });
    });

    it.each([
      ["ref 0", "/api/v1/tracker/userstories/0", { slug: "alice-folio" }, "params.ref: must be >= 1"],
      ["a ref that is not a number", "/api/v1/tracker/tasks/abc", { slug: "alice-folio" }, "params.ref: must be integer"],
      ["a missing slug", "/api/v1/tracker/userstories/1", {}, "querystring.slug: must have required property 'slug'"],
      ["a slug of 256 characters", "/api/v1/tracker/userstories/1", { slug: "s".repeat(256) }, "querystring.slug: must NOT have more than 255 characters"],
    ])("answers 400 for %s without asking the tracker", async (_name, url, query, detail) => {
      const response = await get(url, query);

      expectTrackerProblem(response, { code: "invalid-request", detail, instance: url });
      expect(t.fake.requests).toEqual([]);
    });
  });

  describe("GET /tracker/userstory-statuses and /tracker/task-statuses", () => {
    it("lists the story columns of the project, every page at once", async () => {
      const [fresh, inProgress, done] = t.world.project.statuses.userstories;

      const response = await get("/api/v1/tracker/userstory-statuses", { slug: "alice-folio" });

      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe(JSON_TYPE);
      expect(response.json()).toEqual([
        { id: fresh!.id, name: "New", closed: false },
        { id: inProgress!.id, name: "In progress", closed: false },
        { id: done!.id, name: "Done", closed: true },
      ]);
      const [, list] = t.fake.requests;
      expect(list).toMatchObject({ path: "/api/v1/userstory-statuses", query: { project: String(t.world.project.id) } });
      expect(list!.headers["x-disable-pagination"]).toBe("True");
      expectUpstreamBasics();
    });

    it("lists the task columns of the project", async () => {
      const response = await get("/api/v1/tracker/task-statuses", { slug: "alice-folio" });

      expect(response.json()).toEqual(t.world.project.statuses.tasks.map((status) => ({ id: status.id, name: status.name, closed: status.isClosed })));
      expect(t.fake.requests[1]).toMatchObject({ path: "/api/v1/task-statuses", query: { project: String(t.world.project.id) } });
    });

    it("answers 404 for an unknown project", async () => {
      const response = await get("/api/v1/tracker/task-statuses", { slug: "nope" });

      expect(response.statusCode).toBe(404);
      expect(t.fake.requests).toHaveLength(1);
    });
  });
});
