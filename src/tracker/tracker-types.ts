/**
 * The shapes the tracker proxy answers with, in the interface's names. The HTTP schemas in
 * src/http/routes/tracker.schemas.ts describe the same shapes for validation and OpenAPI; these
 * plain types keep the tracker layer free of the HTTP layer. Optional fields are left out, never null.
 */

/** The two ticket types the proxy offers; the value is also Taiga's path segment. */
export type TicketKind = "userstories" | "tasks";

export interface TrackerSession {
  authToken: string;
  userId: number;
  username: string;
  fullName?: string;
}

export interface TrackerProject {
  id: number;
  name: string;
  slug: string;
}

export interface TrackerTicket {
  id: number;
  ref: number;
  subject: string;
}

export interface TrackerTicketDetail extends TrackerTicket {
  status?: string;
  statusClosed?: boolean;
  assignee?: string;
  version?: number;
}

export interface TrackerStatus {
  id: number;
  name: string;
  closed?: boolean;
}

export interface TrackerCredentials {
  username: string;
  password: string;
}

export interface TrackerStoryCreate {
  project: number;
  subject: string;
}

export interface TrackerTaskCreate extends TrackerStoryCreate {
  userStory: number;
}

export interface TrackerStatusChange {
  status: number;
  version: number;
}
