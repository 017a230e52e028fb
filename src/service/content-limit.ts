import { ServiceError } from "./service-error.js";

/**
 * The one check of the content size limit (`service.documents.max-content-bytes`): a text is held
 * to that many UTF-8 bytes, whether it comes whole (create, replace) or a patch produces it. Above
 * it: 413 `content-too-large`, and nothing is written.
 */
export class ContentLimit {
  constructor(readonly maxBytes: number) {}

  /** Throws `content-too-large` when `text` is over the limit; `what` names it in the detail. */
  check(text: string, what: "content" | "the patched content"): void {
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > this.maxBytes) throw new ServiceError("content-too-large", `${what} ${what === "content" ? "is" : "would be"} ${bytes} bytes; the limit is ${this.maxBytes}`);
  }
}
