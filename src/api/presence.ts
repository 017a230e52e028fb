import { Type } from "@sinclair/typebox";
import { DocumentIdParams } from "./documents.js";
import { CLIENT_ID } from "./examples.js";
import { ReadIdParams } from "./read-links.js";

// Presence (docs/api.md, "Presence"): who is at a document now, held in memory per instance and
// never stored. The client id follows the content patch's rule (src/api/content.ts).

/** The largest `state`, in bytes of its JSON (UTF-8): a larger one answers 413. */
export const PRESENCE_STATE_BYTES = 2048;

const clientIdRule = { minLength: 1, maxLength: 64, description: "random pseudonymous client identifier (as a content patch's clientId)" };
const ClientId = Type.String(clientIdRule);
const ClientIdParam = Type.String({ ...clientIdRule, examples: [CLIENT_ID] });

export const PresenceParams = Type.Object({ ...DocumentIdParams.properties, clientId: ClientIdParam });
export const ReadPresenceParams = Type.Object({ ...ReadIdParams.properties, clientId: ClientIdParam });

const DisplayName = Type.String({ maxLength: 64, description: "unverified claim (as a content patch's displayName)" });
const State = Type.Object(
  {},
  { additionalProperties: true, description: `opaque JSON object of the client (a cursor, a selection; sealed for encrypted documents): at most ${PRESENCE_STATE_BYTES} bytes serialized, else 413` },
);

export const PresenceUpdateRequest = Type.Object({ displayName: Type.Optional(DisplayName), state: State }, { title: "PresenceUpdateRequest" });

export const PresenceRoleSchema = Type.Union([Type.Literal("editor"), Type.Literal("viewer")], {
  description: "`editor`: announced by the document's id; `viewer`: announced through a read-only link",
});

export const PresenceClientSchema = Type.Object(
  {
    clientId: ClientId,
    displayName: Type.Optional(DisplayName),
    role: PresenceRoleSchema,
    state: State,
    updatedAt: Type.String({ format: "date-time", description: "when the client last announced itself; the entry is gone service.presence.ttl-seconds after it" }),
  },
  { title: "PresenceClient" },
);

export const PresenceListSchema = Type.Object(
  { clients: Type.Array(PresenceClientSchema, { description: "the clients present now, in the order they arrived" }) },
  { title: "PresenceList" },
);
