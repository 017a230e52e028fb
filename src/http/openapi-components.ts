import { PROBLEM_MEDIA, problemExamples, SHARED_ANSWERS, type SharedAnswer } from "./openapi-answers.js";
import { REQUEST_ID_PATTERN } from "./request-id.js";

/** `#/components/headers/<name>` of the headers answers share. */
export const HEADER_REFS = {
  requestId: { $ref: "#/components/headers/XRequestId" },
  retryAfter: { $ref: "#/components/headers/RetryAfter" },
};

export const PROBLEM_DETAIL_REF = { $ref: "#/components/schemas/ProblemDetail" };

/** A shared answer as a component response: its description, headers and an example per problem type. */
function componentResponse(answer: SharedAnswer) {
  return {
    description: answer.description,
    headers: { "X-Request-Id": HEADER_REFS.requestId, ...(answer.retryAfter ? { "Retry-After": HEADER_REFS.retryAfter } : {}) },
    content: { [PROBLEM_MEDIA]: { schema: PROBLEM_DETAIL_REF, examples: problemExamples(answer.problems) } },
  };
}

/** `components.responses` and `components.headers` of the document. */
export function sharedComponents() {
  const answers: Record<string, SharedAnswer> = SHARED_ANSWERS;
  return {
    responses: Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, componentResponse(answer)])),
    headers: {
      XRequestId: {
        description:
          "the request's id: the caller's `X-Request-Id` when it is 1 to 64 characters of `A-Z a-z 0-9 . _ : -`, else a random UUID; the log line of the request carries it as `reqId`",
        schema: { type: "string", pattern: REQUEST_ID_PATTERN.source },
        example: "3c1d5f0e-6a43-4f5e-8d0b-1f7f2b9c4a11",
      },
      RetryAfter: {
        description: "whole seconds after which a retry may succeed (a tracker's own wait is passed on up to a day)",
        schema: { type: "integer", minimum: 0, maximum: 86_400 },
        example: 5,
      },
    },
  };
}
