import { Type } from "@sinclair/typebox";

/** RFC 9457 problem details; every error answer has this shape (except the content patch's 409). */
export const ProblemDetailSchema = Type.Object(
  {
    type: Type.String({ description: "stable URI of the kind of problem: `urn:folio:problem:<code>`" }),
    title: Type.String({ description: "the kind of problem, in words; the same for every answer of one `type`" }),
    status: Type.Integer({ minimum: 400, maximum: 599, description: "the HTTP status of the answer" }),
    detail: Type.String({ description: "what was wrong with this request; safe to show" }),
    instance: Type.String({ description: "the request path" }),
  },
  { title: "ProblemDetail" },
);

/**
 * The schema keyword that carries the `detail` of a 400 when a constraint of the schema fails, per
 * JSON Schema keyword: `{ "x-problem-detail": { pattern: "title must not be …" } }`. A schema holds
 * a rule the service also checks; with it, a request the schema now rejects gets the very answer
 * the service's own check gave (src/http/problem-details.ts reads it).
 */
export const PROBLEM_DETAIL_KEYWORD = "x-problem-detail";

/** Schema options that name the 400's `detail` when `keyword` fails: spread into a TypeBox schema's options. */
export function problemDetailOn(keyword: string, detail: string): { [PROBLEM_DETAIL_KEYWORD]: Record<string, string> } {
  return { [PROBLEM_DETAIL_KEYWORD]: { [keyword]: detail } };
}
