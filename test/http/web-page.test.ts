import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/test-app.js";
import { UNKNOWN_ID, expectProblem } from "../support/http-expect.js";

const INDEX = '<!doctype html><title>Folio</title><script type="module" src="/assets/main-ABC123.js"></script>';
const SCRIPT = "console.log('folio');\n";

let built: string;
let missing: string;
let t: TestApp | undefined;

beforeAll(() => {
  built = mkdtempSync(join(tmpdir(), "folio-web-"));
  mkdirSync(join(built, "assets"));
  writeFileSync(join(built, "index.html"), INDEX);
  writeFileSync(join(built, "assets", "main-ABC123.js"), SCRIPT);
  missing = join(built, "no-such-folder");
});

afterAll(() => rmSync(built, { recursive: true, force: true }));

afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("the editor page", () => {
  it("answers index.html at /, at /d/<uuid> and at /r/<uuid>, never cached, and the hashed assets cached for a year", async () => {
    t = await buildTestApp({ webRoot: built });
    for (const url of ["/", `/d/${UNKNOWN_ID}`, `/d/${UNKNOWN_ID.toUpperCase()}`, `/r/${UNKNOWN_ID}`, `/r/${UNKNOWN_ID.toUpperCase()}`]) {
      const page = await t.app.inject({ method: "GET", url });
      expect({
        status: page.statusCode,
        type: page.headers["content-type"],
        cache: page.headers["cache-control"],
        referrer: page.headers["referrer-policy"],
        csp: page.headers["content-security-policy"],
        body: page.body,
      }).toEqual({
        status: 200,
        type: "text/html; charset=utf-8",
        cache: "no-cache",
        referrer: "no-referrer",
        csp: "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        body: INDEX,
      });
    }
    const script = await t.app.inject({ method: "GET", url: "/assets/main-ABC123.js" });
    expect({ status: script.statusCode, type: script.headers["content-type"], cache: script.headers["cache-control"], body: script.body }).toEqual({
      status: 200,
      type: "application/javascript; charset=utf-8",
      cache: "public, max-age=31536000, immutable",
      body: SCRIPT,
    });
  });

  it("answers a friendly HTML 404 for a /d/ or /r/ link that is no UUID, and problem+json for unknown assets and API routes", async () => {
    t = await buildTestApp({ webRoot: built });
    const page = await t.app.inject({ method: "GET", url: "/d/not-a-uuid" });
    expect({ status: page.statusCode, type: page.headers["content-type"] }).toEqual({ status: 404, type: "text/html; charset=utf-8" });
    expect(page.body).toContain("No such document");
    expect(page.body).toContain('<a href="/">');
    const readPage = await t.app.inject({ method: "GET", url: "/r/not-a-uuid" });
    expect({ status: readPage.statusCode, type: readPage.headers["content-type"] }).toEqual({ status: 404, type: "text/html; charset=utf-8" });
    expect(readPage.body).toContain("<h1>No such read-only link</h1>");
    expect(readPage.body).toContain("<code>/r/</code> followed by a UUID");
    expectProblem(await t.app.inject({ method: "GET", url: "/assets/nope.js" }), {
      status: 404,
      code: "route-not-found",
      title: "No such route",
      detail: "no route GET /assets/nope.js",
      instance: "/assets/nope.js",
    });
    expectProblem(await t.app.inject({ method: "GET", url: "/api/v1/nope" }), {
      status: 404,
      code: "route-not-found",
      title: "No such route",
      detail: "no route GET /api/v1/nope",
      instance: "/api/v1/nope",
    });
  });

  it("starts without a built page and answers 503 problem+json for it, while the API works", async () => {
    t = await buildTestApp({ webRoot: missing });
    for (const url of ["/", `/d/${UNKNOWN_ID}`, `/r/${UNKNOWN_ID}`, "/assets/main-ABC123.js"]) {
      expectProblem(await t.app.inject({ method: "GET", url }), {
        status: 503,
        code: "page-not-built",
        title: "Editor page not built",
        detail: "the editor page is not built: run `npm run build` (it writes dist/web)",
        instance: url,
      });
    }
    expect((await t.app.inject({ method: "GET", url: "/api/v1/info" })).statusCode).toEqual(200);
  });
});
