import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Config } from "../../config.js";

/** The service's own name and version, and when it was built (absent without build information). */
export interface ServiceIdentity {
  name: string;
  version: string;
  builtAt?: string;
}

export const ServiceInfoSchema = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    builtAt: Type.Optional(Type.String({ format: "date-time", description: "absent when started without build information" })),
    tracker: Type.Optional(Type.Boolean({ description: "true when a tracker is configured" })),
    trackerWeb: Type.Optional(Type.String({ description: "tracker front end base address without trailing slash" })),
  },
  { title: "ServiceInfo" },
);

export const infoRoutes: FastifyPluginAsyncTypebox<{ identity: ServiceIdentity; tracker: Config["tracker"] }> = async (app, { identity, tracker }) => {
  const body = {
    ...identity,
    tracker: tracker.apiUrl !== undefined,
    ...(tracker.webUrl !== undefined ? { trackerWeb: tracker.webUrl.replace(/\/+$/, "") } : {}),
  };
  app.get("/info", { schema: { tags: ["service"], summary: "Service name, version and tracker", response: { 200: ServiceInfoSchema } } }, async () => body);
};
