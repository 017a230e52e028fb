import type { ProblemDetail } from "./types.js";

/** A non-2xx answer other than the ones a call returns as data: status and the problem+json body. */
export class FolioError extends Error {
  override readonly name = "FolioError";
  readonly status: number;
  readonly problem?: ProblemDetail;
  /** From a `Retry-After` header in seconds (429, 503), when the answer had one. */
  readonly retryAfterSeconds?: number;

  constructor(status: number, problem?: ProblemDetail, retryAfterSeconds?: number) {
    super(problem ? `${status} ${problem.title}: ${problem.detail}` : `the service answered ${status}`);
    this.status = status;
    if (problem !== undefined) this.problem = problem;
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The problem kind, the last part of `type` (`checksum-mismatch`, `base-unavailable`, …). */
  get code(): string | undefined {
    return this.problem?.type.split(":").pop();
  }
}

/** No answer at all: the request failed before or while it was sent, or the answer could not be read. */
export class FolioNetworkError extends Error {
  override readonly name = "FolioNetworkError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** True when a call failed because its AbortSignal fired (the live document was closed). */
export function isAbort(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

/** True for failures worth sending the same request again: no answer, 5xx, 429 and 503. */
export function isTransient(error: unknown): boolean {
  if (error instanceof FolioNetworkError) return true;
  return error instanceof FolioError && (error.status >= 500 || error.status === 429 || error.status === 408);
}
