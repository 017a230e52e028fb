import { request, type IncomingMessage } from "node:http";

/** One frame of a text/event-stream: an event (its fields as sent) or a comment line. */
export type Frame = { event: string; id: string; data: string } | { comment: string };

/** An answer of an events route read over real HTTP: its head, then its frames as they come. */
export interface EventStream {
  status: number;
  headers: IncomingMessage["headers"];
  /** The next frame; rejects when none comes within `maxMs` or the stream ends first. */
  next(maxMs?: number): Promise<Frame>;
  /** Everything left until the service ends the stream (the text of a non-stream answer: its body). */
  rest(maxMs?: number): Promise<string>;
  /** Resolves once the service ended the answer (or the connection closed). */
  ended: Promise<void>;
  close(): void;
}

/** Parses one frame's lines; a line of any other field, or a second data line, is an error. */
export function parseFrame(block: string): Frame {
  const lines = block.split("\n");
  if (lines.length === 1 && lines[0]!.startsWith(": ")) return { comment: lines[0]!.slice(2) };
  // A presence frame has no id (a reconnect resumes from the last change): its id reads as "".
  if (lines[0] === "event: presence" && lines.length === 2 && lines[1]!.startsWith("data: ")) return { event: "presence", id: "", data: lines[1]!.slice(6) };
  const [event, id, data, ...more] = lines;
  if (!event?.startsWith("event: ") || !id?.startsWith("id: ") || !data?.startsWith("data: ") || more.length > 0) throw new Error(`not a change frame: ${JSON.stringify(block)}`);
  return { event: event.slice(7), id: id.slice(4), data: data.slice(6) };
}

/** A presence frame as the service must send it: `data` is GET …/presence's body for the same list. */
export const presenceFrame = (data: string): Frame => ({ event: "presence", id: "", data });

/** A change frame as the service must send it: `data` is the long poll's body for the same answer. */
export const change = (version: number, data: string): Frame => ({ event: "change", id: String(version), data });

/**
 * GETs `path` from `origin` with `Accept: text/event-stream` (and `headers`) on a connection of its
 * own; resolves once the answer's head arrived. Bounded: every wait for a frame has its time.
 */
export function openEventStream(origin: string, path: string, headers: Record<string, string> = {}): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent: false, headers: { accept: "text/event-stream", ...headers } }, (response) => {
      response.setEncoding("utf8");
      let buffer = "";
      let done = false;
      const waiting: (() => void)[] = [];
      const wake = () => waiting.splice(0).forEach((callback) => callback());
      let ended!: () => void;
      const endedPromise = new Promise<void>((resolveEnd) => (ended = resolveEnd));
      const finish = () => {
        done = true;
        ended();
        wake();
      };
      response.on("data", (chunk: string) => {
        buffer += chunk;
        wake();
      });
      response.on("end", finish);
      response.on("close", finish);
      response.on("error", finish);
      const until = <T>(take: () => T | undefined, maxMs: number, what: string): Promise<T> =>
        new Promise((resolveTake, rejectTake) => {
          // A wait that ran out takes nothing that comes later: the next wait gets it.
          const timer = setTimeout(() => {
            const index = waiting.indexOf(attempt);
            if (index >= 0) waiting.splice(index, 1);
            rejectTake(new Error(`${what} within ${maxMs} ms; buffered ${JSON.stringify(buffer.slice(0, 300))}`));
          }, maxMs);
          const attempt = () => {
            let taken: T | undefined;
            try {
              taken = take();
            } catch (error) {
              clearTimeout(timer);
              return rejectTake(error instanceof Error ? error : new Error(String(error)));
            }
            if (taken !== undefined) {
              clearTimeout(timer);
              return resolveTake(taken);
            }
            waiting.push(attempt);
          };
          attempt();
        });
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        next: (maxMs = 2_000) =>
          until(
            () => {
              const end = buffer.indexOf("\n\n");
              if (end < 0) {
                if (done) throw new Error(`the stream ended; left ${JSON.stringify(buffer)}`);
                return undefined;
              }
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              return parseFrame(block);
            },
            maxMs,
            "no frame",
          ),
        rest: (maxMs = 2_000) =>
          until(
            () => {
              if (!done) return undefined;
              const all = buffer;
              buffer = "";
              return all;
            },
            maxMs,
            "the stream did not end",
          ),
        ended: endedPromise,
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
    req.end();
  });
}
