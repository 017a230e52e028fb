import { checksumOf } from "../core/checksum.js";

/**
 * The example values of the OpenAPI document: one small story told by every operation (a document
 * created, edited live by Ada, renamed), so that the examples agree with each other. Each is
 * checked against its schema where a route uses it (`withExample` in src/http/openapi-answers.ts
 * types it by the schema), and by the OpenAPI linter's example rule in the tests.
 */

export const EXAMPLE_DOCUMENT_ID = "0b7f4d52-8f3e-4c1a-9d6e-2f1c3a5b7e90";
export const EXAMPLE_DOCUMENT_PATH = `/api/v1/documents/${EXAMPLE_DOCUMENT_ID}`;

const TITLE = "Team outline";
const CREATED_TEXT = "Plan\n- ship the feed";
/** Version 2: Ada's first line, which is the base of her next patch. */
const BASE_TEXT = "Plan\n- ship the feed\n- write the docs";
/** Version 3: the base with one line appended by Ada's patch. */
const PATCHED_TEXT = "Plan\n- ship the feed\n- write the docs\n- try the tracker panel";
const CREATED_AT = "2026-03-02T09:15:00.000Z";
const UPDATED_AT = "2026-03-02T09:41:27.512Z";
export const CLIENT_ID = "c-4f9a1e07";

const appendedLine = { op: "insert" as const, index: 3, lines: ["- try the tracker panel"] };

export const examples = {
  createRequest: { title: TITLE, content: CREATED_TEXT },
  updateRequest: { title: TITLE, content: PATCHED_TEXT, expectedVersion: 3 },
  document: { id: EXAMPLE_DOCUMENT_ID, title: TITLE, content: PATCHED_TEXT, version: 3, createdAt: CREATED_AT, updatedAt: UPDATED_AT },
  createdDocument: { id: EXAMPLE_DOCUMENT_ID, title: TITLE, content: CREATED_TEXT, version: 1, createdAt: CREATED_AT, updatedAt: CREATED_AT },
  renamedDocument: { id: EXAMPLE_DOCUMENT_ID, title: "Release outline", content: PATCHED_TEXT, version: 4, createdAt: CREATED_AT, updatedAt: UPDATED_AT },
  titlePatch: { title: "Release outline", expectedVersion: 3 },
  restoreRequest: { version: 2 },
  history: [
    { documentId: EXAMPLE_DOCUMENT_ID, version: 1, title: TITLE, content: CREATED_TEXT, changeType: "CREATED" as const, timestamp: CREATED_AT },
    {
      documentId: EXAMPLE_DOCUMENT_ID,
      version: 3,
      title: TITLE,
      content: PATCHED_TEXT,
      changeType: "UPDATED" as const,
      timestamp: UPDATED_AT,
      clientId: CLIENT_ID,
      displayName: "Ada",
    },
  ],
  patchRequest: {
    baseVersion: 2,
    checksum: checksumOf(BASE_TEXT),
    clientId: CLIENT_ID,
    seq: 17,
    displayName: "Ada",
    ops: [appendedLine],
  },
  patchResult: { version: 3, opsSinceBase: [], checksum: checksumOf(PATCHED_TEXT) },
  /** Ada rewrote line 1 of version 2 while Bo's version 3 deleted it: a true overlap. */
  conflict: { currentVersion: 3, opsSinceBase: [{ op: "delete" as const, index: 1, count: 1 }] },
  feedDiff: {
    fromVersion: 2,
    currentVersion: 3,
    ops: [appendedLine],
    events: [{ version: 3, changeType: "UPDATED" as const, clientId: CLIENT_ID, displayName: "Ada" }],
  },
  feedContent: {
    currentVersion: 4,
    content: PATCHED_TEXT,
    events: [{ version: 4, changeType: "RENAMED" as const, title: "Release outline" }],
  },
  serviceInfo: { name: "folio", version: "0.1.0", builtAt: "2026-03-01T18:00:00.000Z", tracker: true, trackerWeb: "https://tracker.example" },
  trackerLogin: { username: "ada", password: "correct horse battery staple" },
  trackerSession: { authToken: "eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyX2lkIjo3fQ.c2lnbmF0dXJl", userId: 7, username: "ada", fullName: "Ada Lovelace" },
  trackerProjects: [{ id: 3, name: "Outline editor", slug: "outline-editor" }],
  storyCreate: { project: 3, subject: "Export an outline to PDF" },
  taskCreate: { project: 3, subject: "Pick a PDF library", userStory: 41 },
  story: { id: 41, ref: 12, subject: "Export an outline to PDF" },
  task: { id: 57, ref: 13, subject: "Pick a PDF library" },
  ticketDetail: { id: 41, ref: 12, subject: "Export an outline to PDF", status: "In progress", statusClosed: false, assignee: "Ada Lovelace", version: 4 },
  movedTicket: { id: 41, ref: 12, subject: "Export an outline to PDF", status: "Done", statusClosed: true, assignee: "Ada Lovelace", version: 5 },
  statusPatch: { status: 14, version: 4 },
  statuses: [
    { id: 11, name: "New", closed: false },
    { id: 12, name: "In progress", closed: false },
    { id: 14, name: "Done", closed: true },
  ],
};
