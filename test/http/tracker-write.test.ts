import { describe, expect, it } from "vitest";
import { JSON_TYPE, expectTrackerProblem, storyAnswer, trackerWorldPerTest } from "../support/tracker-harness.js";

describe("tracker writes", () => {
  const t = trackerWorldPerTest();

  const send = (method: "POST" | "PATCH", url: string, payload: object, query: Record<string, string> = {}) =>
    t.app.inject({ method, url, query, payload, headers: { "x-tracker-token": t.world.token } });

  describe("POST /tracker/userstories and /tracker/tasks", () => {
    it("creates a story that takes the next ref of the project's shared sequence", async () => {
      const response = await send("POST", "/api/v1/tracker/userstories", { project: t.world.project.id, subject: "Sign-up page" });

      expect(response.statusCode).toBe(201);
      expect(response.headers["content-type"]).toBe(JSON_TYPE);
      const created = t.fake.tickets.at(-1)!;
      expect(response.json()).toEqual({ id: created.id, ref: 3, subject: "Sign-up page" });
      expect(created).toMatchObject({ kind: "userstories", version: 1, status: t.world.project.statuses.userstories[0]!.id, owner: t.world.alice.id });
      expect(t.fake.requests).toHaveLength(1);
      const [upstream] = t.fake.requests;
      expect(upstream).toMatchObject({ method: "POST", path: "/api/v1/userstories", search: "" });
      expect(upstream!.body).toEqual({ project: t.world.project.id, subject: "Sign-up page" });
      expect(upstream!.headers.authorization).toBe(`Bearer ${t.world.token}`);
      expect(upstream!.headers.accept).toBe("application/json");
    });

    it("creates a task inside a story, sending userStory as user_story", async () => {
      const response = await send("POST", "/api/v1/tracker/tasks", { project: t.world.project.id, subject: "Style the form", userStory: t.world.story.id });

      expect(response.statusCode).toBe(201);
      const created = t.fake.tickets.at(-1)!;
      expect(response.json()).toEqual({ id: created.id, ref: 3, subject: "Style the form" });
      expect(created).toMatchObject({ kind: "tasks", userStory: t.world.story.id });
      expect(t.fake.requests[0]).toMatchObject({ path: "/api/v1/tasks" });
      expect(t.fake.requests[0]!.body).toEqual({ project: t.world.project.id, subject: "Style the form", user_story: t.world.story.id });
    });

    it("passes on Taiga's field errors as 400 with the message flattened into the detail", async () => {
      const response = await send("POST", "/api/v1/tracker/userstories", { project: 999999, subject: "x" });

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "project: Invalid pk '999999' - object does not exist.", instance: "/api/v1/tracker/userstories" });
    });

    it("joins several field errors and leaves the non_field_errors key out", async () => {
      t.fake.interfere({
        status: 400,
        body: { subject: ["This field is required."], project: ["Invalid pk '9' - object does not exist."], non_field_errors: ["Bad mix."] },
      });

      const response = await send("POST", "/api/v1/tracker/userstories", { project: 9, subject: "x" });

      expectTrackerProblem(response, {
        code: "tracker-rejected",
        detail: "subject: This field is required.; project: Invalid pk '9' - object does not exist.; Bad mix.",
        instance: "/api/v1/tracker/userstories",
      });
    });

    it("passes on Taiga's 400 for a task whose story is in another project", async () => {
      const foreign = t.fake.addStory({ project: t.world.other, subject: "Bob's story" });

      const response = await send("POST", "/api/v1/tracker/tasks", { project: t.world.project.id, subject: "x", userStory: foreign.id });

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "You don't have permissions to set this user story to this task.", instance: "/api/v1/tracker/tasks" });
    });

    it("passes on Taiga's 403 when the user is no member of the project", async () => {
      const response = await send("POST", "/api/v1/tracker/userstories", { project: t.world.other.id, subject: "Not mine" });

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "You do not have permission to perform this action.", instance: "/api/v1/tracker/userstories", status: 403 });
    });

    it.each([
      ["an empty subject", "/api/v1/tracker/userstories", { project: 1, subject: "" }, "body.subject: must NOT have fewer than 1 characters"],
      ["a subject of 501 characters", "/api/v1/tracker/userstories", { project: 1, subject: "s".repeat(501) }, "body.subject: must NOT have more than 500 characters"],
      ["a project given as text", "/api/v1/tracker/userstories", { project: "1", subject: "x" }, "body.project: must be integer"],
      ["a task without its story", "/api/v1/tracker/tasks", { project: 1, subject: "x" }, "body.userStory: must have required property 'userStory'"],
      ["a project id beyond the exact range", "/api/v1/tracker/tasks", { project: 2 ** 53, subject: "x", userStory: 1 }, "body.project: must be <= 9007199254740991"],
    ])("answers 400 for %s without asking the tracker", async (_name, url, payload, detail) => {
      const response = await send("POST", url, payload);

      expectTrackerProblem(response, { code: "invalid-request", detail, instance: url });
      expect(t.fake.requests).toEqual([]);
    });
  });

  describe("PATCH /tracker/userstories/{ref}/status and /tracker/tasks/{ref}/status", () => {
    it("looks the story up by slug and ref, patches {status, version} and answers the new state", async () => {
      const response = await send("PATCH", "/api/v1/tracker/userstories/1/status", { status: t.world.done.id, version: 1 }, { slug: "alice-folio" });

      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe(JSON_TYPE);
      expect(response.json()).toEqual(storyAnswer(t.world, { status: "Done", statusClosed: true, version: 2 }));
      const calls = t.fake.requests.map((request) => `${request.method} ${request.path}?${request.search}`);
      expect(calls).toEqual([
        "GET /api/v1/projects/by_slug?slug=alice-folio",
        `GET /api/v1/userstories/by_ref?project=${t.world.project.id}&ref=1`,
        `PATCH /api/v1/userstories/${t.world.story.id}?`,
      ]);
      const patch = t.fake.requests[2]!;
      expect(patch.body).toEqual({ status: t.world.done.id, version: 1 });
      expect(patch.headers.authorization).toBe(`Bearer ${t.world.token}`);
      expect(patch.headers["content-type"]).toBe("application/json");
    });

    it("moves a task to another task column", async () => {
      const closed = t.world.project.statuses.tasks[2]!;

      const response = await send("PATCH", "/api/v1/tracker/tasks/2/status", { status: closed.id, version: 1 }, { slug: "alice-folio" });

      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: t.world.task.id, ref: 2, subject: "Write the form", status: "Closed", statusClosed: true, version: 2 });
      expect(t.fake.requests[2]).toMatchObject({ method: "PATCH", path: `/api/v1/tasks/${t.world.task.id}` });
    });

    it("passes Taiga's optimistic-lock rejection on as 400 and neither retries nor overwrites", async () => {
      t.fake.editTicket(t.world.story, { status: t.world.project.statuses.userstories[0]!.id });

      const response = await send("PATCH", "/api/v1/tracker/userstories/1/status", { status: t.world.done.id, version: 1 }, { slug: "alice-folio" });

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "version: The version doesn't match with the current one", instance: "/api/v1/tracker/userstories/1/status" });
      expect(t.fake.requests.filter((request) => request.method === "PATCH")).toHaveLength(1);
      expect(t.world.story).toMatchObject({ status: t.world.project.statuses.userstories[0]!.id, version: 2 });
    });

    it("lets Taiga accept a stale version when only other fields changed meanwhile", async () => {
      t.fake.editTicket(t.world.story, { subject: "Login page v2" });

      const response = await send("PATCH", "/api/v1/tracker/userstories/1/status", { status: t.world.done.id, version: 1 }, { slug: "alice-folio" });

      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ subject: "Login page v2", status: "Done", version: 3 });
    });

    it("passes on Taiga's 400 for a version from the future", async () => {
      const response = await send("PATCH", "/api/v1/tracker/userstories/1/status", { status: t.world.done.id, version: 5 }, { slug: "alice-folio" });

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "version: The version parameter is not valid", instance: "/api/v1/tracker/userstories/1/status" });
    });

    it("passes on Taiga's 400 for a status that does not exist", async () => {
      const response = await send("PATCH", "/api/v1/tracker/tasks/2/status", { status: 999999, version: 1 }, { slug: "alice-folio" });

      expectTrackerProblem(response, { code: "tracker-rejected", detail: "status: Invalid pk '999999' - object does not exist.", instance: "/api/v1/tracker/tasks/2/status" });
    });

    it("passes on 403 for a story and 400 for a task when the status belongs to another project", async () => {
      const foreignStory = t.world.other.statuses.userstories[1]!;
      const foreignTask = t.world.other.statuses.tasks[1]!;

      const story = await send("PATCH", "/api/v1/tracker/userstories/1/status", { status: foreignStory.id, version: 1 }, { slug: "alice-folio" });
      const task = await send("PATCH", "/api/v1/tracker/tasks/2/status", { status: foreignTask.id, version: 1 }, { slug: "alice-folio" });

      expectTrackerProblem(story, {
        code: "tracker-rejected",
        status: 403,
        detail: "You don't have permissions to set this status to this user story.",
        instance: "/api/v1/tracker/userstories/1/status",
      });
      expectTrackerProblem(task, { code: "tracker-rejected", detail: "You don't have permissions to set this status to this task.", instance: "/api/v1/tracker/tasks/2/status" });
    });

    it("answers 404 before writing anything when the ref is unknown", async () => {
      const response = await send("PATCH", "/api/v1/tracker/tasks/77/status", { status: t.world.done.id, version: 1 }, { slug: "alice-folio" });

      expectTrackerProblem(response, { code: "tracker-rejected", status: 404, detail: "No Task matches the given query.", instance: "/api/v1/tracker/tasks/77/status" });
      expect(t.fake.requests.map((request) => request.method)).toEqual(["GET", "GET"]);
    });

    it.each([
      ["a missing version", { status: 1 }, "body.version: must have required property 'version'"],
      ["a status given as text", { status: "Done", version: 1 }, "body.status: must be integer"],
      ["a fractional version", { status: 1, version: 1.5 }, "body.version: must be integer"],
    ])("answers 400 for %s without asking the tracker", async (_name, payload, detail) => {
      const response = await send("PATCH", "/api/v1/tracker/userstories/1/status", payload, { slug: "alice-folio" });

      expectTrackerProblem(response, { code: "invalid-request", detail, instance: "/api/v1/tracker/userstories/1/status" });
      expect(t.fake.requests).toEqual([]);
    });
  });
});
