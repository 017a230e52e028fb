import { buildTestApp, type TestAppOptions } from "../support/test-app.js";
import type { OpenApiDocument } from "../support/openapi-conformance.js";

/** The OpenAPI document the app serves at GET /api/v1/openapi.json (an app on a fresh store, closed after). */
export async function servedOpenApi(options: TestAppOptions = {}): Promise<OpenApiDocument> {
  const t = await buildTestApp(options);
  try {
    const response = await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    if (response.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${response.statusCode}`);
    return response.json<OpenApiDocument>();
  } finally {
    await t.close();
  }
}
