import { FolioNetworkError, isAbort } from "./errors.js";
import type { ChangeFeed, PresenceList } from "./types.js";

/** An `event: presence` frame: who is at the document now (docs/api.md, "Presence"). */
export interface PresenceFrame {
  presence: PresenceList;
}

/** What a change feed's event stream brings: an answer of the feed, a presence list, or a comment (`: open`, `: keep-alive`). */
export type StreamFrame = ChangeFeed | PresenceFrame | "comment";

export const isPresenceFrame = (frame: StreamFrame): frame is PresenceFrame => typeof frame === "object" && "presence" in frame;

/** A change feed's event stream (docs/api.md, "The event stream"), frame by frame. */
export interface FeedStream {
  /**
   * The next frame; `undefined` once the service ended the stream. Rejects with a FolioNetworkError
   * when the connection breaks or a frame cannot be read, with an AbortError when its signal fired.
   */
  next(): Promise<StreamFrame | undefined>;
}

/** A stream that the service ended before it began (the 204 of an instance that is shutting down). */
export const ENDED_STREAM: FeedStream = { next: () => Promise.resolve(undefined) };

/** Parses one frame: a comment, `event: change` with its `data` (the feed's JSON on one line), or `event: presence` with the list. */
function parseFrame(block: string, what: string): StreamFrame | undefined {
  let event: string | undefined;
  let data: string | undefined;
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data = data === undefined ? value : `${data}\n${value}`;
  }
  if (data === undefined) return "comment";
  // Events of other kinds, should a later service send them, are not the feed's: passed over.
  if (event !== "change" && event !== "presence") return undefined;
  try {
    const parsed = JSON.parse(data) as unknown;
    if (event === "change") return parsed as ChangeFeed;
    const clients = (parsed as { clients?: unknown } | null)?.clients;
    return Array.isArray(clients) ? { presence: parsed as PresenceList } : undefined;
  } catch (error) {
    throw new FolioNetworkError(`${what}: a frame is not JSON`, { cause: error });
  }
}

/** The frames of a `text/event-stream` body, read as they come (a frame ends with an empty line). */
export function readFrames(body: ReadableStream<Uint8Array>, what: string): FeedStream {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let done = false;
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame = parseFrame(block, what);
          if (frame !== undefined) return frame;
          continue;
        }
        if (done) return undefined;
        try {
          const chunk = await reader.read();
          if (chunk.done) done = true;
          else buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
        } catch (error) {
          if (isAbort(error)) throw error;
          throw new FolioNetworkError(`${what}: the stream broke off (${String(error)})`, { cause: error });
        }
      }
    },
  };
}
