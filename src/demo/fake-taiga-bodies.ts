import { randomBytes } from "node:crypto";
import type { FakeKind, FakeStatus, FakeTaigaData, FakeTicket, FakeUser, FakeProject } from "./fake-taiga-data.js";

// Taiga's serializers for the fake's state, after docs/taiga.md: the bodies Taiga sends for a
// login, a project, a status column and a ticket, with the fields the proxy reads and enough of the
// rest that a change of what the proxy reads shows up in the tests.

/** `UserBasicInfoSerializer`: a user as a ticket or project names them. */
export function userBasic(data: FakeTaigaData, id: number | null): Record<string, unknown> | null {
  const user = data.users.find((candidate) => candidate.id === id);
  if (!user) return null;
  return {
    username: user.username,
    full_name_display: user.fullName || user.username,
    photo: null,
    big_photo: null,
    gravatar_id: "0f1e2d3c",
    is_active: user.active,
    id: user.id,
  };
}

/** `UserAdminSerializer` plus the two tokens. */
export function loginBody(user: FakeUser, token: string): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    full_name: user.fullName,
    full_name_display: user.fullName || user.username,
    color: "#c9f5fe",
    bio: "",
    lang: "",
    theme: "",
    timezone: "",
    is_active: user.active,
    photo: null,
    big_photo: null,
    gravatar_id: "0f1e2d3c",
    roles: ["Back"],
    total_private_projects: 0,
    total_public_projects: 0,
    email: user.email,
    uuid: "6a1f9c4e2b",
    date_joined: "2020-07-03T08:40:29.738Z",
    read_new_terms: false,
    accepted_terms: true,
    max_private_projects: null,
    max_public_projects: null,
    max_memberships_private_projects: null,
    max_memberships_public_projects: null,
    verified_email: true,
    auth_token: token,
    refresh: `eyJ${randomBytes(24).toString("base64url")}`,
  };
}

/** The project list's serializer, or with `detail` the detail one (members and status columns embedded). */
export function projectBody(data: FakeTaigaData, project: FakeProject, viewer: FakeUser | undefined, detail: boolean): Record<string, unknown> {
  const member = viewer !== undefined && project.members.includes(viewer.id);
  const body: Record<string, unknown> = {
    id: project.id,
    name: project.name,
    slug: project.slug,
    description: `${project.name} project`,
    created_date: "2020-07-03T08:40:29.738Z",
    modified_date: "2020-07-03T08:40:29.738Z",
    owner: userBasic(data, project.members[0] ?? null),
    members: detail ? project.members.map((id) => ({ ...userBasic(data, id), role: 1, role_name: "Back" })) : project.members,
    is_private: project.isPrivate,
    is_backlog_activated: true,
    is_kanban_activated: true,
    default_us_status: project.statuses.userstories[0]!.id,
    default_task_status: project.statuses.tasks[0]!.id,
    i_am_member: member,
    i_am_owner: member && project.members[0] === viewer.id,
    my_permissions: member ? ["view_project", "view_us", "add_us", "modify_us", "view_tasks", "add_task", "modify_task"] : [],
    logo_small_url: null,
    tags: [],
  };
  if (detail) {
    // The embedded status rows are raw DB rows: `project_id`, not `project`.
    const row = ({ project: projectId, isClosed, ...status }: FakeStatus) => ({ ...status, is_closed: isClosed, project_id: projectId });
    body.us_statuses = project.statuses.userstories.map((status) => ({ ...row(status), is_archived: false, wip_limit: null }));
    body.task_statuses = project.statuses.tasks.map(row);
  }
  return body;
}

/** A status column as the status lists give it. */
export function statusBody(kind: FakeKind, status: FakeStatus): Record<string, unknown> {
  const base = { id: status.id, name: status.name, slug: status.slug, order: status.order, is_closed: status.isClosed, color: status.color };
  return kind === "userstories" ? { ...base, is_archived: false, wip_limit: null, project: status.project } : { ...base, project: status.project };
}

/** The detail serializer; `by_ref` adds `neighbors`. */
export function ticketBody(data: FakeTaigaData, ticket: FakeTicket, withNeighbors: boolean): Record<string, unknown> {
  const project = data.projects.find((candidate) => candidate.id === ticket.project)!;
  const status = data.findStatus(ticket.status)!;
  const tasks = data.tickets.filter((task) => task.kind === "tasks" && task.userStory === ticket.id);
  const isClosed =
    ticket.kind === "userstories" && tasks.length > 0 ? tasks.every((task) => data.findStatus(task.status)?.isClosed) : status.isClosed;
  const body: Record<string, unknown> = {
    id: ticket.id,
    ref: ticket.ref,
    subject: ticket.subject,
    project: project.id,
    project_extra_info: { id: project.id, name: project.name, slug: project.slug, logo_small_url: null },
    version: ticket.version,
    status: status.id,
    status_extra_info: { name: status.name, color: status.color, is_closed: status.isClosed },
    is_closed: isClosed,
    assigned_to: ticket.assignedTo,
    assigned_to_extra_info: userBasic(data, ticket.assignedTo),
    owner: ticket.owner,
    owner_extra_info: userBasic(data, ticket.owner),
    created_date: ticket.createdDate,
    modified_date: ticket.modifiedDate,
    milestone: null,
    description: "",
    tags: [],
    watchers: [],
    is_blocked: false,
    blocked_note: "",
    total_comments: 0,
    due_date: null,
  };
  if (ticket.kind === "tasks") {
    const story = data.tickets.find((candidate) => candidate.id === ticket.userStory);
    body.user_story = ticket.userStory;
    body.user_story_extra_info = story ? { id: story.id, ref: story.ref, subject: story.subject, epics: null } : null;
  } else {
    body.tasks = [];
    body.assigned_users = ticket.assignedTo === null ? [] : [ticket.assignedTo];
  }
  if (withNeighbors) {
    const siblings = data.tickets.filter((other) => other.kind === ticket.kind && other.project === ticket.project).sort((a, b) => a.ref - b.ref);
    const at = siblings.indexOf(ticket);
    const brief = (other: FakeTicket | undefined) => (other ? { id: other.id, ref: other.ref, subject: other.subject } : null);
    body.neighbors = { previous: brief(siblings[at - 1]), next: brief(siblings[at + 1]) };
  }
  return body;
}
