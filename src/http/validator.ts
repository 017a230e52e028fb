import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { FastifySchema, FastifySchemaCompiler } from "fastify";

// Bodies are taken as sent: a number where a string belongs is a 400, never silently converted.
// Path, query and header values arrive as text and are converted to the declared types.
const strictAjv = addFormats.default(new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false }));
const coercingAjv = addFormats.default(new Ajv({ coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false, strict: false }));

/** Fastify's validator compiler: strict for bodies, coercing for the parts that arrive as text. */
export const compileValidator: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const validate: ValidateFunction = (httpPart === "body" ? strictAjv : coercingAjv).compile(schema as object);
  return validate;
};
