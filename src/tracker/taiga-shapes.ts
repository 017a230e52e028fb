import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { TrackerProject, TrackerSession, TrackerStatus, TrackerTicket, TrackerTicketDetail } from "./tracker-types.js";

/*
 * The parts of Taiga's answers (docs/taiga.md#fields-read-from-each-answer) the proxy reads. Only these fields are
 * checked; everything else Taiga sends is ignored. A 2xx body that does not fit is a 502.
 */

// Ids end up in upstream paths: they must be whole, non-negative and exact in a JS number.
const Id = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const NullableObject = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

const AuthAnswer = Type.Object({
  auth_token: Type.String({ minLength: 1 }),
  id: Id,
  username: Type.String(),
  full_name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  full_name_display: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

const ProjectAnswer = Type.Object({ id: Id, name: Type.String(), slug: Type.String() });

const TicketAnswer = Type.Object({
  id: Id,
  ref: Id,
  subject: Type.String(),
  version: Type.Optional(Type.Integer()),
  status_extra_info: NullableObject(
    Type.Object({
      name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      is_closed: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    }),
  ),
  assigned_to_extra_info: NullableObject(Type.Object({ full_name_display: Type.Optional(Type.Union([Type.String(), Type.Null()])) })),
});

const StatusAnswer = Type.Object({
  id: Id,
  name: Type.String(),
  is_closed: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});

/** A compiled check of one answer shape; `describe` names it in the 502 detail. */
export interface AnswerShape<T> {
  describe: string;
  check(value: unknown): value is T;
}

function shape<T extends TSchema>(describe: string, schema: T): AnswerShape<Static<T>> {
  const compiled = TypeCompiler.Compile(schema);
  return { describe, check: (value: unknown): value is Static<T> => compiled.Check(value) };
}

export const authShape = shape("a login answer", AuthAnswer);
export const projectShape = shape("a project", ProjectAnswer);
export const projectListShape = shape("a list of projects", Type.Array(ProjectAnswer));
export const ticketShape = shape("a ticket", TicketAnswer);
export const statusListShape = shape("a list of statuses", Type.Array(StatusAnswer));

export type TaigaTicket = Static<typeof TicketAnswer>;

/** `full_name_display` else `full_name`; left out when Taiga has neither. */
export function toSession(answer: Static<typeof AuthAnswer>): TrackerSession {
  const fullName = answer.full_name_display || answer.full_name;
  return { authToken: answer.auth_token, userId: answer.id, username: answer.username, ...(fullName ? { fullName } : {}) };
}

export function toProject(answer: Static<typeof ProjectAnswer>): TrackerProject {
  return { id: answer.id, name: answer.name, slug: answer.slug };
}

export function toTicket(answer: TaigaTicket): TrackerTicket {
  return { id: answer.id, ref: answer.ref, subject: answer.subject };
}

/**
 * `statusClosed` is the status's own `is_closed`, not the story's `is_closed` (which also depends
 * on its tasks); `assignee` is absent when Taiga's `assigned_to_extra_info` is null.
 */
export function toTicketDetail(answer: TaigaTicket): TrackerTicketDetail {
  const status = answer.status_extra_info ?? undefined;
  const assignee = answer.assigned_to_extra_info?.full_name_display ?? undefined;
  const detail: TrackerTicketDetail = toTicket(answer);
  if (typeof status?.name === "string") detail.status = status.name;
  if (typeof status?.is_closed === "boolean") detail.statusClosed = status.is_closed;
  if (assignee) detail.assignee = assignee;
  if (answer.version !== undefined) detail.version = answer.version;
  return detail;
}

export function toStatus(answer: Static<typeof StatusAnswer>): TrackerStatus {
  return { id: answer.id, name: answer.name, ...(typeof answer.is_closed === "boolean" ? { closed: answer.is_closed } : {}) };
}
