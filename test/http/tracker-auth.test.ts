import { afterEach, describe, expect, it } from "vitest";
import { JSON_TYPE, startTrackerHarness, type TrackerHarness, expectTrackerProblem } from "../support/tracker-harness.js";

const AUTH = "/api/v1/tracker/auth";

describe("POST /tracker/auth", () => {
  let harness: TrackerHarness;
  afterEach(async () => harness.close());

  async function start(loginType = "ldap") {
    harness = await startTrackerHarness({ loginType });
    const alice = harness.fake.addUser({ username: "alice", password: "s3cret-Pa55word", fullName: "Alice Liddell" });
    return { ...harness, alice };
  }

  const login = (username: string, password: string) => harness.app.inject({ method: "POST", url: AUTH, payload: { username, password } });

  it("logs in with the configured type and maps Taiga's answer to a TrackerSession", async () => {
    const { fake, alice } = await start();

    const response = await login("alice", "s3cret-Pa55word");

    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe(JSON_TYPE);
    const issued = [...fake.tokens.keys()].at(-1)!;
    expect(response.json()).toEqual({ authToken: issued, userId: alice.id, username: "alice", fullName: "Alice Liddell" });
    expect(fake.requests).toHaveLength(1);
    const [upstream] = fake.requests;
    expect(upstream).toMatchObject({ method: "POST", path: "/api/v1/auth", search: "" });
    expect(upstream!.body).toEqual({ type: "ldap", username: "alice", password: "s3cret-Pa55word" });
    expect(upstream!.headers.authorization).toBeUndefined();
    expect(upstream!.headers.accept).toBe("application/json");
    expect(upstream!.headers["content-type"]).toBe("application/json");
    expect(upstream!.headers["x-disable-pagination"]).toBeUndefined();
  });

  it("sends the type as configured; Taiga lower-cases it", async () => {
    const { fake } = await start("Normal");

    const response = await login("ALICE@example.org", "s3cret-Pa55word");

    expect(response.statusCode).toBe(200);
    expect(fake.requests[0]!.body).toMatchObject({ type: "Normal", username: "ALICE@example.org" });
  });

  it("takes full_name when full_name_display is missing and leaves fullName out when Taiga has no name", async () => {
    const { fake } = await start();
    fake.interfere({ status: 200, body: { id: 7, username: "carol", full_name: "Carol C", auth_token: "tok-7" } });
    fake.interfere({ status: 200, body: { id: 8, username: "dave", full_name: "", full_name_display: null, auth_token: "tok-8" } });

    expect((await login("carol", "pw")).json()).toEqual({ authToken: "tok-7", userId: 7, username: "carol", fullName: "Carol C" });
    expect((await login("dave", "pw")).json()).toEqual({ authToken: "tok-8", userId: 8, username: "dave" });
  });

  it("answers 400 credentials rejected when Taiga (6.3 and later) rejects them with 401", async () => {
    await start();

    const response = await login("alice", "wrong");

    expectTrackerProblem(response, { code: "tracker-credentials-rejected", detail: "the tracker rejected the login: No active account found with the given credentials", instance: AUTH });
  });

  it("answers 400 credentials rejected when an older Taiga rejects them with 400", async () => {
    const { fake } = await start();
    fake.interfere({
      status: 400,
      body: { _error_message: "Username or password does not matches user.", _error_type: "taiga.base.exceptions.WrongArguments" },
    });

    const response = await login("alice", "wrong");

    expectTrackerProblem(response, {
      code: "tracker-credentials-rejected",
      detail: "the tracker rejected the login: Username or password does not matches user.",
      instance: AUTH,
    });
  });

  it("passes on Taiga's 400 for a login type it does not know as credentials rejected", async () => {
    await start("github");

    const response = await login("alice", "s3cret-Pa55word");

    expectTrackerProblem(response, { code: "tracker-credentials-rejected", detail: "the tracker rejected the login: invalid login type", instance: AUTH });
  });

  it("never repeats the password in a detail, even when the tracker echoes it", async () => {
    const { fake } = await start();
    fake.interfere({ status: 400, body: { error_message: "LDAP bind failed: alice/s3cret-Pa55word" } });

    const response = await login("alice", "s3cret-Pa55word");

    expectTrackerProblem(response, { code: "tracker-credentials-rejected", detail: "the tracker rejected the login", instance: AUTH });
    expect(response.body).not.toContain("s3cret-Pa55word");
  });

  it("flattens the LDAP plugin's nested error_message into the detail", async () => {
    const { fake } = await start();
    fake.interfere({ status: 400, body: { error_message: { ldap: "LDAP login not found", normal: { username: ["This field is required."] } } } });

    const response = await login("alice", "x");

    expectTrackerProblem(response, {
      code: "tracker-credentials-rejected",
      detail: "the tracker rejected the login: ldap: LDAP login not found; normal: username: This field is required.",
      instance: AUTH,
    });
  });

  it("keeps a throttled login as 429 with Retry-After", async () => {
    const { fake } = await start();
    fake.interfere({ throttleSeconds: 42 });

    const response = await login("alice", "s3cret-Pa55word");

    expect(response.headers["retry-after"]).toBe("42");
    expectTrackerProblem(response, { code: "tracker-rejected", status: 429, detail: "Request was throttled.Expected available in 42 seconds.", instance: AUTH });
  });

  it("answers 502 when the tracker fails on login", async () => {
    const { fake } = await start();
    fake.interfere("server-error");

    const response = await login("alice", "s3cret-Pa55word");

    expectTrackerProblem(response, { code: "tracker-unavailable", detail: "the tracker failed with status 500", instance: AUTH });
  });

  it.each([
    ["an empty user name", { username: "", password: "pw" }, "body.username: must NOT have fewer than 1 characters"],
    ["a password of 256 characters", { username: "alice", password: "p".repeat(256) }, "body.password: must NOT have more than 255 characters"],
    ["a missing password", { username: "alice" }, "body.password: must have required property 'password'"],
  ])("answers 400 for %s without asking the tracker", async (_name, payload, detail) => {
    const { fake } = await start();

    const response = await harness.app.inject({ method: "POST", url: AUTH, payload });

    expectTrackerProblem(response, { code: "invalid-request", detail, instance: AUTH });
    expect(fake.requests).toEqual([]);
  });
});
