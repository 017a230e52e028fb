import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { FastifySchema, FastifySchemaCompiler } from "fastify";
import { UUID_PATTERN } from "../core/uuid.js";

// Bodies are taken as sent: a number where a string belongs is a 400, never silently converted.
// Path, query and header values arrive as text and are converted to the declared types.
// `verbose` puts the failing schema into each error, where a rule may name its 400's detail
// (src/api/problem.ts, PROBLEM_DETAIL_KEYWORD).
const strictAjv = withFormats(new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false, verbose: true }));
const coercingAjv = withFormats(new Ajv({ coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false, strict: false, verbose: true }));

/** ajv-formats' formats, with `uuid` held to the canonical form (no `urn:uuid:` prefix). */
function withFormats(ajv: Ajv): Ajv {
  return addFormats.default(ajv).addFormat("uuid", UUID_PATTERN);
}

/** Fastify's validator compiler: strict for bodies, coercing for the parts that arrive as text. */
export const compileValidator: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const validate: ValidateFunction = (httpPart === "body" ? strictAjv : coercingAjv).compile(schema as object);
  return validate;
};
