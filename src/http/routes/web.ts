import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { UUID_PATTERN } from "../../core/uuid.js";
import { sendProblem } from "../problem-details.js";

/** Where `npm run build` puts the page (scripts/build-web.mjs): `<repo>/dist/web`, from src/ and from dist/ alike. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL("../../../dist/web", import.meta.url));

/**
 * The page's own script and style only, and the API of its own origin. A document's address is its
 * access (the UUID is the secret), so no Referer leaves the page; CodeMirror writes its styles at run
 * time, hence the inline styles.
 */
export const PAGE_HEADERS = {
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
};

/** The small HTML answer for a /d/ or /r/ link whose id is no UUID. */
const notFoundPage = (heading: string, prefix: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found · Folio</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d2430}a{color:#1a56b8}</style></head>
<body><main><h1>${heading}</h1><p>A ${prefix === "/d/" ? "document" : "read-only"} link looks like <code>${prefix}</code> followed by a UUID. This one does not.</p>
<p><a href="/">Go to the start page</a></p></main></body></html>
`;
const NOT_FOUND_PAGES = { "/d/": notFoundPage("No such document", "/d/"), "/r/": notFoundPage("No such read-only link", "/r/") };

/**
 * The editor page, outside /api/v1: `/`, `/d/<uuid>` (a document) and `/r/<uuid>` (its read-only
 * page, docs/sharing.md) answer the page's index.html (the page itself tells them apart), `/assets/*`
 * the content-hashed bundle (cached for a year). Any other `/d/<x>` or `/r/<x>` is a small HTML
 * not-found page. Without a built page (a checkout where the build did not
 * run, most tests) the service still starts and these paths answer 503 problem+json.
 */
export const webRoutes: FastifyPluginAsync<{ root: string }> = async (app, { root }) => {
  const indexPath = join(root, "index.html");
  const index = existsSync(indexPath) ? readFileSync(indexPath) : undefined;
  const sendIndex = (reply: FastifyReply) => reply.type("text/html; charset=utf-8").headers(PAGE_HEADERS).send(index);

  if (index === undefined) {
    const notBuilt = (request: FastifyRequest, reply: FastifyReply) =>
      sendProblem(request, reply, "page-not-built", "the editor page is not built: run `npm run build` (it writes dist/web)");
    app.get("/", { schema: { hide: true } }, notBuilt);
    app.get("/d/:documentId", { schema: { hide: true } }, notBuilt);
    app.get("/r/:readId", { schema: { hide: true } }, notBuilt);
    app.get("/assets/*", { schema: { hide: true } }, notBuilt);
    return;
  }

  await app.register(fastifyStatic, {
    root: join(root, "assets"),
    prefix: "/assets/",
    decorateReply: false,
    index: false,
    immutable: true,
    maxAge: 365 * 24 * 3600 * 1000,
    schemaHide: true,
  });
  app.get("/", { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
  for (const prefix of ["/d/", "/r/"] as const) {
    app.get<{ Params: { id: string } }>(`${prefix}:id`, { schema: { hide: true } }, (request, reply) => {
      if (UUID_PATTERN.test(request.params.id)) return sendIndex(reply);
      return reply.code(404).type("text/html; charset=utf-8").send(NOT_FOUND_PAGES[prefix]);
    });
  }
};
