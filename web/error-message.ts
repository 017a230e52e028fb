/** A readable message for any error a call can raise (FolioError carries the problem's detail). */
export function messageOf(error: unknown): string {
  if (error && typeof error === "object") {
    const problem = (error as { problem?: { detail?: string } }).problem;
    if (problem?.detail) return problem.detail;
    if (error instanceof Error) return error.message;
  }
  return String(error);
}
