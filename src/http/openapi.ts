/**
 * Finishing touches on the OpenAPI document @fastify/swagger builds from the route schemas, so that
 * generated clients in other languages get named types and named calls:
 * - every schema object with a `title` (Document, ContentPatchRequest, LineOperation, ProblemDetail, …,
 *   the wire shapes of src/api) becomes `components.schemas.<title>` and is referenced by `$ref`;
 * - every operation has an `operationId`: the one its route declares, or one made from its method
 *   and path for a route that declares none;
 * - the restore request's body is optional (the plugin marks every request body as required).
 */

type Json = Record<string, unknown>;

interface OpenApiLike {
  paths?: Record<string, Record<string, Json> | undefined>;
  components?: { schemas?: Record<string, unknown> } & Json;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

export function finishOpenApi<T extends object>(input: T, apiPrefix: string): T {
  const document = input as OpenApiLike;
  const schemas: Record<string, unknown> = { ...(document.components?.schemas ?? {}) };
  const paths = document.paths ?? {};
  for (const [path, item] of Object.entries(paths)) {
    if (!item) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operation.operationId ??= defaultOperationId(method, path.slice(apiPrefix.length));
      for (const key of ["requestBody", "responses", "parameters"]) {
        if (operation[key] !== undefined) operation[key] = nameSchemas(operation[key], schemas);
      }
    }
  }
  const restore = paths[`${apiPrefix}/documents/{documentId}/restore`]?.post as { requestBody?: Json } | undefined;
  if (restore?.requestBody && "required" in restore.requestBody) restore.requestBody.required = false;
  document.components = { ...(document.components ?? {}), schemas };
  return input;
}

/**
 * Replaces titled schema objects (innermost first) by references to components. A title met again
 * with a different shape stays inline: a reference must never change what a document says.
 */
function nameSchemas(node: unknown, schemas: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((child) => nameSchemas(child, schemas));
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = nameSchemas(value, schemas);
  const title = out.title;
  if (typeof title !== "string" || !/^[A-Za-z][A-Za-z0-9]*$/.test(title) || out.type !== "object") return out;
  const known = schemas[title];
  if (known === undefined) schemas[title] = out;
  else if (JSON.stringify(known) !== JSON.stringify(out)) return out;
  return { $ref: `#/components/schemas/${title}` };
}

/** `get /documents/{documentId}/history` → `getDocumentsHistory` (only for routes that name none). */
function defaultOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((part) => part !== "" && !part.startsWith("{"))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method, ...words].map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join("");
}
