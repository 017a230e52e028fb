import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** A request id a caller may choose: short, and safe in a log line and a header. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/** The id of a request (`X-Request-Id` of the answer, `reqId` of its log line): the caller's when sane, else a random UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
}
