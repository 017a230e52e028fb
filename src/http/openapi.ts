import type { FastifyInstance } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { finishOperations } from "./openapi-operations.js";
import { sharedComponents } from "./openapi-components.js";
import { PAGE_HEADERS } from "./routes/web.js";

/**
 * The OpenAPI document (docs/openapi.md): @fastify/swagger builds it from the route schemas, and
 * finishOpenApi gives it what the route schemas cannot say one route at a time:
 * - every schema object with a `title` (Document, ContentPatchRequest, LineOperation, ProblemDetail, …,
 *   the wire shapes of src/api) becomes `components.schemas.<title>` and is referenced by `$ref`;
 * - the shared answers and headers become `components.responses` and `components.headers`, and
 *   every operation gets the answers every request may get (src/http/openapi-operations.ts);
 * - every operation has an `operationId`: the one its route declares, or one made from its method
 *   and path for a route that declares none;
 * - the restore request's body is optional (the plugin marks every request body as required).
 */
export async function registerOpenApi(app: FastifyInstance, apiPrefix: string): Promise<void> {
  await app.register(swagger, {
    transformObject: (documentObject) => {
      if (!("openapiObject" in documentObject)) return documentObject.swaggerObject;
      return finishOpenApi(documentObject.openapiObject, apiPrefix);
    },
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "Folio document-editing service",
        version: "0.1.0",
        // The project has chosen no open licence (package.json says UNLICENSED, npm's word for it, which
        // the URL explains); when it chooses one, its name and URL go here (docs/openapi.md).
        license: { name: "UNLICENSED (all rights reserved)", url: "https://docs.npmjs.com/cli/v11/configuring-npm/package-json#license" },
        // A document served by an instance: whoever runs it answers for it.
        contact: { name: "the operator of this Folio instance" },
        description:
          "Documents behind unguessable links, live editing by line diffs, history, a long-polling change feed and a narrow ticket-tracker proxy. " +
          "Possession of a document's UUID is the access: the document operations need no credentials. Errors are RFC 9457 problem details " +
          "(`application/problem+json`, `type` `urn:folio:problem:<code>`); every answer carries `X-Request-Id`.",
      },
      servers: [{ url: "/", description: "the service that serves this document" }],
      // No credentials unless an operation says otherwise: the list and the tracker proxy do.
      security: [],
      components: {
        securitySchemes: {
          masterPassword: { type: "http", scheme: "basic", description: "user `admin` and the master password (service.master-password.hash)" },
          trackerToken: {
            type: "apiKey",
            in: "header",
            name: "X-Tracker-Token",
            description: "the bare tracker token from POST /tracker/auth: at most 512 printable ASCII characters, without a `Bearer ` prefix",
          },
        },
      },
      tags: [
        { name: "documents", description: "documents, history, restore, live editing and the change feed" },
        { name: "presence", description: "who is at a document now: held in memory, never stored" },
        { name: "tracker", description: "the narrow proxy to the configured ticket tracker" },
        { name: "service", description: "service information" },
      ],
    },
  });
  // The browsable view is a page like the editor's: the same headers (no script or style from
  // elsewhere, no Referer, no framing). Swagger UI's online validator badge would load an image from
  // elsewhere, so it is off.
  await app.register(swaggerUi, {
    routePrefix: `${apiPrefix}/docs`,
    uiConfig: { validatorUrl: null },
    uiHooks: {
      onRequest: (_request, reply, done) => {
        void reply.headers(PAGE_HEADERS);
        done();
      },
    },
  });
}

type Json = Record<string, unknown>;

/** Where the schemes the interface defines but no operation applies yet wait (an extension no tool reads). */
export const PLANNED_SCHEMES = "x-planned-security-schemes";

/**
 * The interface defines a Bearer scheme (JWT) that no operation uses yet ("defined but not active").
 * An unused entry of securitySchemes makes linters warn and generators emit dead code, so it waits
 * under an extension until an operation applies it, and then moves to securitySchemes (docs/openapi.md).
 */
const PLANNED_SECURITY_SCHEMES = {
  bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "defined by the interface, applied to no operation yet" },
};

interface OpenApiLike {
  paths?: Record<string, Record<string, Json> | undefined>;
  components?: { schemas?: Record<string, unknown> } & Json;
}

export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

export function finishOpenApi<T extends object>(input: T, apiPrefix: string): T {
  const document = input as OpenApiLike;
  const schemas: Record<string, unknown> = { ...(document.components?.schemas ?? {}) };
  const paths = document.paths ?? {};
  const securitySchemes = (document.components?.securitySchemes ?? {}) as Record<string, Json>;
  for (const [path, item] of Object.entries(paths)) {
    if (!item) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operation.operationId ??= defaultOperationId(method, path.slice(apiPrefix.length));
      for (const key of ["requestBody", "responses", "parameters"]) {
        if (operation[key] !== undefined) operation[key] = nameSchemas(operation[key], schemas);
      }
      finishOperations(method, operation, securitySchemes);
    }
  }
  const restore = paths[`${apiPrefix}/documents/{documentId}/restore`]?.post as { requestBody?: Json } | undefined;
  if (restore?.requestBody && "required" in restore.requestBody) restore.requestBody.required = false;
  document.components = { ...(document.components ?? {}), schemas, ...sharedComponents(), [PLANNED_SCHEMES]: PLANNED_SECURITY_SCHEMES };
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
  // Example values are data, never schemas, whatever keys they have.
  for (const [key, value] of Object.entries(node)) out[key] = key === "example" || key === "examples" ? value : nameSchemas(value, schemas);
  const title = out.title;
  const named = out.type === "object" || Array.isArray(out.oneOf);
  if (typeof title !== "string" || !/^[A-Za-z][A-Za-z0-9]*$/.test(title) || !named) return out;
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
