/**
 * The stable codes of the problems the service reports. The HTTP layer maps each to a status,
 * a `type` URI and a title (src/http/problem-details.ts); the service knows nothing of HTTP.
 */
export type ProblemCode =
  | "invalid-request"
  | "credentials-required"
  | "not-found"
  | "version-conflict"
  | "document-exists"
  | "seq-reused"
  | "content-too-large"
  | "checksum-mismatch"
  | "range-outside-text"
  | "base-unavailable"
  | "rebase-too-large"
  | "list-locked"
  | "list-busy"
  | "rate-limited"
  | "presence-full"
  | "tracker-token-required"
  | "tracker-credentials-rejected"
  | "tracker-rejected"
  | "tracker-unavailable"
  | "tracker-not-configured";

/** A problem a client caused or must know about; `detail` is safe to show to the client. */
export class ServiceError extends Error {
  override readonly name = "ServiceError";

  constructor(
    readonly code: ProblemCode,
    detail: string,
    /** Extra facts for the renderer: an upstream status, a `Retry-After` in seconds. */
    readonly extra: { status?: number; retryAfterSeconds?: number } = {},
  ) {
    super(detail);
  }
}
