import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Config } from "../../config.js";
import { ServiceInfoSchema } from "../../api/info.js";

/** The service's own name and version, and when it was built (absent without build information). */
export interface ServiceIdentity {
  name: string;
  version: string;
  builtAt?: string;
}

export const infoRoutes: FastifyPluginAsyncTypebox<{ identity: ServiceIdentity; tracker: Config["tracker"] }> = async (app, { identity, tracker }) => {
  const body = {
    ...identity,
    tracker: tracker.apiUrl !== undefined,
    ...(tracker.webUrl !== undefined ? { trackerWeb: tracker.webUrl.replace(/\/+$/, "") } : {}),
  };
  app.get("/info", { schema: { tags: ["service"], operationId: "getServiceInfo", summary: "Service name, version and tracker", response: { 200: ServiceInfoSchema } } }, async () => body);
};
