import { SHARED_RESPONSE_MARK, type SharedAnswerName } from "./openapi-answers.js";
import { HEADER_REFS } from "./openapi-components.js";

type Json = Record<string, unknown>;

/** The methods that write; every one of them may carry a body too large. */
const WRITES = new Set(["post", "put", "patch", "delete"]);

/**
 * The answers any operation may get whatever its route says, from the one place that knows them:
 * the HTTP layer answers a request that is not valid HTTP (400), arrives too slowly (408) or has
 * too many headers (431); the error handler answers a fault (500); the store or the drain a 503;
 * every request may meet a rate limit (429: reads, writes, waits); every write may exceed the body
 * limit (413). A status the route declares itself wins. Routes added later get these without a word.
 */
const COMMON_ANSWERS: { status: string; answer: SharedAnswerName; applies: (method: string) => boolean }[] = [
  { status: "400", answer: "InvalidRequest", applies: () => true },
  { status: "408", answer: "RequestTimeout", applies: () => true },
  { status: "413", answer: "ContentTooLarge", applies: (method) => WRITES.has(method) },
  { status: "429", answer: "RateLimited", applies: () => true },
  { status: "431", answer: "HeadersTooLarge", applies: () => true },
  { status: "500", answer: "InternalError", applies: () => true },
  { status: "503", answer: "Unavailable", applies: () => true },
];

const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** Finishes one operation of the document in place: shared answers, common answers, headers, security. */
export function finishOperations(method: string, operation: Json, securitySchemes: Record<string, Json>): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  for (const [status, response] of Object.entries(responses)) {
    const name = sharedName(response);
    if (name !== undefined) responses[status] = responseRef(name);
    else response.headers = { ...(response.headers as Json | undefined), "X-Request-Id": HEADER_REFS.requestId };
  }
  for (const { status, answer, applies } of COMMON_ANSWERS) {
    if (applies(method) && responses[status] === undefined) responses[status] = responseRef(answer);
  }
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  dropSecuredHeaders(operation, securitySchemes);
}

/** The component a route's response stands for (src/http/openapi-answers.ts, `shared`), if any. */
function sharedName(response: Json): string | undefined {
  const content = (response.content ?? {}) as Record<string, Json>;
  for (const media of Object.values(content)) {
    const name = media[SHARED_RESPONSE_MARK];
    if (typeof name === "string") return name;
  }
  return undefined;
}

/**
 * A header that an `apiKey` scheme of the operation's security names (`X-Tracker-Token`) is that
 * scheme's, not a parameter: the route schema keeps it for validation and types only.
 */
function dropSecuredHeaders(operation: Json, securitySchemes: Record<string, Json>): void {
  const requirements = (operation.security ?? []) as Record<string, unknown>[];
  const secured = new Set(
    requirements
      .flatMap((requirement) => Object.keys(requirement))
      .map((name) => securitySchemes[name])
      .filter((scheme) => scheme?.type === "apiKey" && scheme.in === "header")
      .map((scheme) => String(scheme?.name).toLowerCase()),
  );
  if (secured.size === 0 || !Array.isArray(operation.parameters)) return;
  const parameters = (operation.parameters as Json[]).filter((parameter) => !(parameter.in === "header" && secured.has(String(parameter.name).toLowerCase())));
  if (parameters.length > 0) operation.parameters = parameters;
  else delete operation.parameters;
}
