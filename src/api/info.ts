import { Type } from "@sinclair/typebox";

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
