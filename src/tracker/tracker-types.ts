import type { Static } from "@sinclair/typebox";
import type * as Wire from "../api/tracker.js";

/**
 * The shapes the tracker proxy takes and answers with, in the interface's names: derived from the
 * wire schemas of src/api/tracker.ts (written once there), which the tracker layer may read without
 * reaching the HTTP layer. Optional fields are left out, never null.
 */

/** The two ticket types the proxy offers; the value is also Taiga's path segment. */
export type TaigaTicketPath = "userstories" | "tasks";

export type TrackerSession = Static<typeof Wire.TrackerSession>;
export type TrackerProject = Static<typeof Wire.TrackerProject>;
export type TrackerTicket = Static<typeof Wire.TrackerTicket>;
export type TrackerTicketDetail = Static<typeof Wire.TrackerTicketDetail>;
export type TrackerStatus = Static<typeof Wire.TrackerStatus>;
export type TrackerCredentials = Static<typeof Wire.TrackerAuthRequest>;
export type TrackerStoryCreate = Static<typeof Wire.TrackerStoryCreateRequest>;
export type TrackerTaskCreate = Static<typeof Wire.TrackerTaskCreateRequest>;
export type TrackerStatusChange = Static<typeof Wire.TrackerStatusPatch>;
