import { ProblemDetailSchema } from "../../api/problem.js";

/** The OpenAPI response of a problem answer (application/problem+json), for every route's error statuses. */
export const problemResponse = { content: { "application/problem+json": { schema: ProblemDetailSchema } } };
