import { describe, expect, it } from "vitest";
import { OpenApiConformance, type OpenApiDocument } from "../support/openapi-conformance.js";

// The checker the client and hostile-input tests hold answers with: it must name each way an
// answer can stray from the document.

const document: OpenApiDocument = {
  paths: {
    "/things/{id}": {
      get: {
        responses: {
          "200": { description: "a thing", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } },
          "204": { description: "nothing" },
          "4XX": { $ref: "#/components/responses/Problem" },
        },
      },
    },
  },
  components: {
    schemas: { Thing: { type: "object", required: ["id"], properties: { id: { type: "integer", format: "int64", minimum: 1 } } } },
    responses: { Problem: { description: "a problem", content: { "application/problem+json": { schema: { type: "object", required: ["type"] } } } } },
  },
};

const answer = (status: number, contentType: string | undefined, body: string, target = "/things/7") => ({ method: "GET", target, status, contentType, body });

describe("OpenApiConformance", () => {
  const conformance = new OpenApiConformance(document);

  it("accepts answers as documented, a 4XX range and a body-less 204 included", () => {
    expect(conformance.fault(answer(200, "application/json; charset=utf-8", '{"id":7}'))).toBeUndefined();
    expect(conformance.fault(answer(404, "application/problem+json", '{"type":"urn:x"}'))).toBeUndefined();
    expect(conformance.fault(answer(204, undefined, ""))).toBeUndefined();
  });

  it("names an undocumented status, media type, body and a body where none belongs", () => {
    expect(conformance.fault(answer(500, "application/problem+json", '{"type":"urn:x"}'))).toBe("GET /things/{id} → 500: the status is not documented");
    expect(conformance.fault(answer(200, "text/plain", "7"))).toBe("GET /things/{id} → 200: media type text/plain is not documented (application/json)");
    expect(conformance.fault(answer(200, "application/json", '{"id":0}'))).toBe('GET /things/{id} → 200 (application/json): data/id must be >= 1: {"id":0}');
    expect(conformance.fault(answer(204, "application/json", "{}"))).toBe("GET /things/{id} → 204: a body where none is documented");
  });

  it("leaves alone what no operation documents", () => {
    expect(conformance.operationOf("GET", "/elsewhere")).toBeUndefined();
    expect(conformance.fault(answer(500, "text/html", "<p>", "/elsewhere"))).toBeUndefined();
  });
});
