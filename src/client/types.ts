import type { Static } from "@sinclair/typebox";
import type { ChangeEventSchema, ChangeFeedSchema } from "../api/changes.js";
import type { ContentConflict as ContentConflictSchema, ContentPatchRequest as ContentPatchRequestSchema, ContentPatchResult as ContentPatchResultSchema } from "../api/content.js";
import type {
  DocumentCreateRequest as DocumentCreateRequestSchema,
  DocumentSchema,
  DocumentUpdateRequest as DocumentUpdateRequestSchema,
  HistoryEntrySchema,
  TitlePatchRequest as TitlePatchRequestSchema,
} from "../api/documents.js";
import type { ServiceInfoSchema } from "../api/info.js";
import type { PresenceClientSchema, PresenceListSchema, PresenceUpdateRequest as PresenceUpdateRequestSchema } from "../api/presence.js";
import type { ProblemDetailSchema } from "../api/problem.js";
import type { ReadLinkSchema, ReadOnlyDocumentSchema } from "../api/read-links.js";
import type {
  TrackerAuthRequest as TrackerAuthRequestSchema,
  TrackerProject as TrackerProjectSchema,
  TrackerSession as TrackerSessionSchema,
  TrackerStatus as TrackerStatusSchema,
  TrackerStatusPatch as TrackerStatusPatchSchema,
  TrackerStoryCreateRequest as TrackerStoryCreateRequestSchema,
  TrackerTaskCreateRequest as TrackerTaskCreateRequestSchema,
  TrackerTicket as TrackerTicketSchema,
  TrackerTicketDetail as TrackerTicketDetailSchema,
} from "../api/tracker.js";

// The wire types, each the static type of the one TypeBox schema the service validates and
// documents with (src/api). Type-only imports: the client bundle carries no schema at run time.

export type { LineOperation } from "../core/line-operation.js";
export type Document = Static<typeof DocumentSchema>;
export type DocumentCreateRequest = Static<typeof DocumentCreateRequestSchema>;
export type DocumentUpdateRequest = Static<typeof DocumentUpdateRequestSchema>;
export type TitlePatchRequest = Static<typeof TitlePatchRequestSchema>;
export type HistoryEntry = Static<typeof HistoryEntrySchema>;
export type ChangeType = HistoryEntry["changeType"];
export type ContentPatchRequest = Static<typeof ContentPatchRequestSchema>;
export type ContentPatchResult = Static<typeof ContentPatchResultSchema>;
export type ContentConflict = Static<typeof ContentConflictSchema>;
export type ChangeEvent = Static<typeof ChangeEventSchema>;
export type ChangeFeed = Static<typeof ChangeFeedSchema>;
export type ServiceInfo = Static<typeof ServiceInfoSchema>;
export type ProblemDetail = Static<typeof ProblemDetailSchema>;
export type PresenceUpdateRequest = Static<typeof PresenceUpdateRequestSchema>;
export type PresenceClient = Static<typeof PresenceClientSchema>;
export type PresenceList = Static<typeof PresenceListSchema>;
export type ReadLink = Static<typeof ReadLinkSchema>;
export type ReadOnlyDocument = Static<typeof ReadOnlyDocumentSchema>;
export type TrackerAuthRequest = Static<typeof TrackerAuthRequestSchema>;
export type TrackerSession = Static<typeof TrackerSessionSchema>;
export type TrackerProject = Static<typeof TrackerProjectSchema>;
export type TrackerStoryCreateRequest = Static<typeof TrackerStoryCreateRequestSchema>;
export type TrackerTaskCreateRequest = Static<typeof TrackerTaskCreateRequestSchema>;
export type TrackerTicket = Static<typeof TrackerTicketSchema>;
export type TrackerTicketDetail = Static<typeof TrackerTicketDetailSchema>;
export type TrackerStatus = Static<typeof TrackerStatusSchema>;
export type TrackerStatusPatch = Static<typeof TrackerStatusPatchSchema>;
