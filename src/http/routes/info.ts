import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Config } from "../../config/config.js";
import { examples } from "../../api/examples.js";
import { ServiceInfoSchema } from "../../api/info.js";
import { json, shared } from "../openapi-answers.js";

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
  app.get(
    "/info",
    {
      schema: {
        tags: ["service"],
        operationId: "getServiceInfo",
        summary: "Service name, version and tracker",
        description:
          "The service's own name and version (not the interface's, which is this document's `info.version`), when it was built, and whether a tracker is configured: the editor shows ticket actions only then.",
        response: {
          200: json("the service's identity and its tracker", ServiceInfoSchema, examples.serviceInfo),
          // It reads no database: only the drain refuses it.
          503: shared("ShuttingDown"),
        },
      },
    },
    async () => body,
  );
};
