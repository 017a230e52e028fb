import type { FastifyInstance } from "fastify";
import type { Config } from "../config/config.js";
import { ServiceError } from "../service/service-error.js";

/**
 * The body limit of every route that carries no document: a rename, a restore, the tracker's login
 * and writes. Their largest legitimate body (500 characters of a ticket subject, each escaped as a
 * surrogate pair, `\ud83d\ude00`) is about 6 KB.
 */
export const SMALL_BODY_BYTES = 16 * 1024;

/**
 * How deeply a JSON body may nest arrays and objects. The deepest body of the interface is a content
 * patch (object → ops → op → lines: 3 levels); JSON.parse takes time superlinear in the nesting, so
 * deeper bodies are refused before they are parsed (docs/api.md, "Bounds").
 */
export const MAX_JSON_DEPTH = 32;

/**
 * The body limit of the routes that carry a document's text (create, replace, content patch): JSON
 * escaping can double a text (every newline becomes two bytes), so twice the content limit and room
 * for the rest of the body. The content itself is held to max-content-bytes exactly by the service.
 */
export function documentBodyBytes(documents: Config["documents"]): number {
  return documents.maxContentBytes * 2 + 65_536;
}

/** Any character that is not white space: a body without one reads as no body. */
const NOT_BLANK = /\S/;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/**
 * Whether `text` nests brackets deeper than `limit`, outside its strings. One pass, jumping from
 * quote to quote inside strings: a few milliseconds for a body of megabytes, and what it says about
 * text that is not JSON does not matter (the parser refuses that next).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(text, i + 1);
      if (i < 0) return false;
    } else if (OPENERS.has(code)) {
      if (++depth > limit) return true;
    } else if (CLOSERS.has(code)) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that closes a string whose text starts at `from`; -1 when none does. */
function stringEnd(text: string, from: number): number {
  let start = from;
  for (;;) {
    const quote = text.indexOf('"', start);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (quote - backslashes - 1 >= start && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    start = quote + 1;
  }
}

/**
 * The app's JSON body parser: an empty body reads as no body (the restore request's body is
 * optional), one nested deeper than {@link MAX_JSON_DEPTH} is a 400 before it is parsed, anything
 * else goes through Fastify's own parser, which drops `__proto__` and `constructor.prototype` keys
 * like any other unknown field. Each route's body limit is Fastify's `bodyLimit`: the app's default
 * is {@link SMALL_BODY_BYTES}, and the routes that carry a document name {@link documentBodyBytes}.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("remove", "remove");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body.toString();
    // Blank is checked without copying the body (a trim would copy every patch's whole body).
    if (!NOT_BLANK.test(text)) return done(null, null);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new ServiceError("invalid-request", `the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    void parseJson(request, text, done);
  });
}
