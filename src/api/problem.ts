import { Type } from "@sinclair/typebox";

/** RFC 9457 problem details; every error answer has this shape (except the content patch's 409). */
export const ProblemDetailSchema = Type.Object(
  {
    type: Type.String({ description: "stable URI of the kind of problem" }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    instance: Type.String({ description: "the request path" }),
  },
  { title: "ProblemDetail" },
);
