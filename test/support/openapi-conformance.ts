import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

/**
 * Holds real answers against the served OpenAPI document, as a validating proxy would: the
 * request's operation is found by method and path template; the answer's status must be one the
 * operation documents (exactly, or as `4XX`), its media type one that status documents (none for a
 * body-less answer), and its body must match that media type's schema (a JSON body parsed, a file taken as
 * its text).
 */

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, Json>>;
  components: Json;
}

export interface Answer {
  method: string;
  /** The request target; its query is ignored. */
  target: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

export class OpenApiConformance {
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp; params: number }[];

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = addFormats.default(new Ajv({ strict: false, allErrors: false })).addFormat("int32", true).addFormat("int64", true);
    this.ajv.addSchema(document, "openapi.json");
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      params: (template.match(/\{/g) ?? []).length,
    }));
  }

  /** The path template of the documented operation `method target` answers for, if any. */
  operationOf(method: string, target: string): string | undefined {
    const path = target.split("?")[0] ?? target;
    const found = this.templates
      .filter(({ template, pattern }) => pattern.test(path) && this.document.paths[template]?.[method.toLowerCase()] !== undefined)
      .sort((a, b) => a.params - b.params)[0];
    return found?.template;
  }

  /** Why `answer` is not what the document says, or undefined when it is (or no operation documents it). */
  fault(answer: Answer): string | undefined {
    const template = this.operationOf(answer.method, answer.target);
    if (template === undefined) return undefined;
    const method = answer.method.toLowerCase();
    const where = `${answer.method} ${template} → ${answer.status}`;
    const responses = (this.document.paths[template]![method] as { responses: Record<string, Json> }).responses;
    const key = [String(answer.status), `${String(answer.status)[0]}XX`, "default"].find((status) => responses[status] !== undefined);
    if (key === undefined) return `${where}: the status is not documented`;
    const response = this.resolve(responses[key]!);
    const content = response.content as Record<string, Json> | undefined;
    const media = answer.contentType?.split(";")[0]?.trim();
    if (content === undefined) return answer.body === "" ? undefined : `${where}: a body where none is documented`;
    if (media === undefined || content[media] === undefined) return `${where}: media type ${media ?? "none"} is not documented (${Object.keys(content).join(", ")})`;
    // A file (an export's Markdown, OPML or text) is its text; every other body is JSON.
    let body: unknown = answer.body;
    if (/[/+]json$/.test(media)) {
      try {
        body = JSON.parse(answer.body);
      } catch {
        return `${where}: the body is not JSON`;
      }
    }
    const validate = this.validator(`#/paths/${pointer(template)}/${method}/responses/${key}`, response, media);
    if (validate(body)) return undefined;
    return `${where} (${media}): ${this.ajv.errorsText(validate.errors)}: ${answer.body.slice(0, 300)}`;
  }

  private validator(at: string, response: Json, media: string): ValidateFunction {
    const id = `${at}/${media}`;
    let validate = this.validators.get(id);
    if (!validate) {
      const schema = ((response.content as Record<string, Json>)[media] as { schema: Json }).schema;
      validate = this.ajv.compile(rebase(schema) as object);
      this.validators.set(id, validate);
    }
    return validate;
  }

  private resolve(node: Json): Json {
    const ref = node.$ref;
    if (typeof ref !== "string") return node;
    return ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<Json>((at, part) => at[part] as Json, this.document as unknown as Json);
  }
}

/** A JSON pointer segment for a path template. */
function pointer(template: string): string {
  return template.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A schema of the document, its local `$ref`s pointed at the document added to ajv as `openapi.json`. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === "$ref" && typeof value === "string" && value.startsWith("#") ? `openapi.json${value}` : rebase(value)]),
  );
}
