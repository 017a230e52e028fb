import { randomBytes } from "node:crypto";

/*
 * The state of the fake Taiga (test/support/fake-taiga.ts) and Taiga's serializers for it, after
 * docs/taiga.md: users with tokens, projects with members and their own status columns,
 * and user stories and tasks that share one ref sequence per project and carry an OCC version.
 */

export type FakeKind = "userstories" | "tasks";

export interface FakeUser {
  id: number;
  username: string;
  email: string;
  password: string;
  fullName: string;
  active: boolean;
}

export interface FakeStatus {
  id: number;
  project: number;
  name: string;
  slug: string;
  order: number;
  isClosed: boolean;
  color: string;
}

export interface FakeProject {
  id: number;
  name: string;
  slug: string;
  isPrivate: boolean;
  members: number[];
  statuses: Record<FakeKind, FakeStatus[]>;
  /** The one ref sequence of the project, shared by every ticket type. */
  lastRef: number;
}

export interface FakeTicket {
  kind: FakeKind;
  id: number;
  ref: number;
  project: number;
  subject: string;
  status: number;
  assignedTo: number | null;
  owner: number | null;
  userStory: number | null;
  version: number;
  /** `changes[v - 1]`: the fields whose change took the ticket from version v to v + 1 (the history diffs). */
  changes: string[][];
  createdDate: string;
  modifiedDate: string;
}

export interface StatusSeed {
  name: string;
  closed?: boolean;
}

const DEFAULT_STATUSES: Record<FakeKind, StatusSeed[]> = {
  userstories: [{ name: "New" }, { name: "In progress" }, { name: "Done", closed: true }],
  tasks: [{ name: "New" }, { name: "In progress" }, { name: "Closed", closed: true }],
};

export class FakeTaigaData {
  readonly users: FakeUser[] = [];
  readonly projects: FakeProject[] = [];
  readonly tickets: FakeTicket[] = [];
  readonly tokens = new Map<string, number>();
  #nextId = 100;

  addUser(seed: { username: string; password: string; fullName?: string; email?: string; active?: boolean }): FakeUser {
    const user: FakeUser = {
      id: this.#id(),
      username: seed.username,
      email: seed.email ?? `${seed.username}@example.org`,
      password: seed.password,
      fullName: seed.fullName ?? "",
      active: seed.active ?? true,
    };
    this.users.push(user);
    return user;
  }

  /** A fresh access token for `user`, as a login would give. */
  issueToken(user: FakeUser): string {
    const token = `eyJ${randomBytes(24).toString("base64url")}`;
    this.tokens.set(token, user.id);
    return token;
  }

  addProject(seed: { name: string; slug: string; members?: FakeUser[]; isPrivate?: boolean; statuses?: Partial<Record<FakeKind, StatusSeed[]>> }): FakeProject {
    const id = this.#id();
    const statusesOf = (kind: FakeKind): FakeStatus[] =>
      (seed.statuses?.[kind] ?? DEFAULT_STATUSES[kind]).map((status, order) => ({
        id: this.#id(),
        project: id,
        name: status.name,
        slug: status.name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
        order: order + 1,
        isClosed: status.closed ?? false,
        color: "#999999",
      }));
    const project: FakeProject = {
      id,
      name: seed.name,
      slug: seed.slug,
      isPrivate: seed.isPrivate ?? true,
      members: (seed.members ?? []).map((user) => user.id),
      statuses: { userstories: statusesOf("userstories"), tasks: statusesOf("tasks") },
      lastRef: 0,
    };
    this.projects.push(project);
    return project;
  }

  addStory(seed: { project: FakeProject; subject: string; status?: FakeStatus; assignedTo?: FakeUser }): FakeTicket {
    return this.createTicket("userstories", seed.project, { subject: seed.subject, status: seed.status?.id, assignedTo: seed.assignedTo?.id });
  }

  addTask(seed: { project: FakeProject; subject: string; userStory?: FakeTicket; status?: FakeStatus; assignedTo?: FakeUser }): FakeTicket {
    return this.createTicket("tasks", seed.project, {
      subject: seed.subject,
      status: seed.status?.id,
      assignedTo: seed.assignedTo?.id,
      userStory: seed.userStory?.id,
    });
  }

  createTicket(kind: FakeKind, project: FakeProject, fields: { subject: string; status?: number; assignedTo?: number; userStory?: number; owner?: number }): FakeTicket {
    const now = new Date().toISOString();
    project.lastRef += 1;
    const ticket: FakeTicket = {
      kind,
      id: this.#id(),
      ref: project.lastRef,
      project: project.id,
      subject: fields.subject,
      status: fields.status ?? project.statuses[kind][0]!.id,
      assignedTo: fields.assignedTo ?? null,
      owner: fields.owner ?? null,
      userStory: fields.userStory ?? null,
      version: 1,
      changes: [],
      createdDate: now,
      modifiedDate: now,
    };
    this.tickets.push(ticket);
    return ticket;
  }

  /** Someone else edits the ticket: the version moves on and the history records the changed fields. */
  editTicket(ticket: FakeTicket, fields: { status?: number; subject?: string; assignedTo?: number | null }): void {
    const changed = Object.entries(fields).filter(([key, value]) => value !== undefined && ticket[key as keyof typeof fields] !== value);
    Object.assign(ticket, Object.fromEntries(changed));
    ticket.changes.push(changed.map(([key]) => (key === "assignedTo" ? "assigned_to" : key)));
    ticket.version += 1;
    ticket.modifiedDate = new Date().toISOString();
  }

  findStatus(id: number): FakeStatus | undefined {
    return this.projects.flatMap((project) => [...project.statuses.userstories, ...project.statuses.tasks]).find((status) => status.id === id);
  }

  userBasic(id: number | null): Record<string, unknown> | null {
    const user = this.users.find((candidate) => candidate.id === id);
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
  loginBody(user: FakeUser, token: string): Record<string, unknown> {
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

  projectBody(project: FakeProject, viewer: FakeUser | undefined, detail: boolean): Record<string, unknown> {
    const member = viewer !== undefined && project.members.includes(viewer.id);
    const body: Record<string, unknown> = {
      id: project.id,
      name: project.name,
      slug: project.slug,
      description: `${project.name} project`,
      created_date: "2020-07-03T08:40:29.738Z",
      modified_date: "2020-07-03T08:40:29.738Z",
      owner: this.userBasic(project.members[0] ?? null),
      members: detail ? project.members.map((id) => ({ ...this.userBasic(id), role: 1, role_name: "Back" })) : project.members,
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

  statusBody(kind: FakeKind, status: FakeStatus): Record<string, unknown> {
    const base = { id: status.id, name: status.name, slug: status.slug, order: status.order, is_closed: status.isClosed, color: status.color };
    return kind === "userstories" ? { ...base, is_archived: false, wip_limit: null, project: status.project } : { ...base, project: status.project };
  }

  /** The detail serializer; `by_ref` adds `neighbors`. */
  ticketBody(ticket: FakeTicket, withNeighbors: boolean): Record<string, unknown> {
    const project = this.projects.find((candidate) => candidate.id === ticket.project)!;
    const status = this.findStatus(ticket.status)!;
    const tasks = this.tickets.filter((task) => task.kind === "tasks" && task.userStory === ticket.id);
    const isClosed =
      ticket.kind === "userstories" && tasks.length > 0 ? tasks.every((task) => this.findStatus(task.status)?.isClosed) : status.isClosed;
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
      assigned_to_extra_info: this.userBasic(ticket.assignedTo),
      owner: ticket.owner,
      owner_extra_info: this.userBasic(ticket.owner),
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
      const story = this.tickets.find((candidate) => candidate.id === ticket.userStory);
      body.user_story = ticket.userStory;
      body.user_story_extra_info = story ? { id: story.id, ref: story.ref, subject: story.subject, epics: null } : null;
    } else {
      body.tasks = [];
      body.assigned_users = ticket.assignedTo === null ? [] : [ticket.assignedTo];
    }
    if (withNeighbors) {
      const siblings = this.tickets.filter((other) => other.kind === ticket.kind && other.project === ticket.project).sort((a, b) => a.ref - b.ref);
      const at = siblings.indexOf(ticket);
      const brief = (other: FakeTicket | undefined) => (other ? { id: other.id, ref: other.ref, subject: other.subject } : null);
      body.neighbors = { previous: brief(siblings[at - 1]), next: brief(siblings[at + 1]) };
    }
    return body;
  }

  #id(): number {
    this.#nextId += 1;
    return this.#nextId;
  }
}
