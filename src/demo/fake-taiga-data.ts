import { randomBytes } from "node:crypto";

/*
 * The state of the fake Taiga (fake-taiga.ts), after docs/taiga.md: users with tokens, projects with
 * members and their own status columns, and user stories and tasks that share one ref sequence per
 * project and carry an OCC version. Taiga's bodies for them are in fake-taiga-bodies.ts.
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

  #id(): number {
    this.#nextId += 1;
    return this.#nextId;
  }
}
