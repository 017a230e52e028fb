import { request as httpRequest, type Agent, type IncomingHttpHeaders } from "node:http";

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request on its way: its answer, and (for a held one) the call that sends the rest of its body. */
export interface SentRequest {
  answer: Promise<Answer>;
  rest: () => void;
}

/**
 * One request to `address` (through `agent` when given); with `hold`, only the first half of the
 * body goes out until `rest` is called, so the request is in flight for as long as a test needs.
 * The answer rejects with the socket's error (ECONNRESET, ECONNREFUSED) when there is none.
 */
export function send(address: URL, method: string, path: string, options: { body?: string; hold?: boolean; agent?: Agent } = {}): SentRequest {
  const { body, hold = false, agent } = options;
  const request = httpRequest({
    host: address.hostname,
    port: address.port,
    method,
    path,
    ...(agent ? { agent } : {}),
    headers: body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.once("error", reject);
    request.once("response", (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.once("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      response.once("error", reject);
    });
  });
  // A test that fails before it awaits the answer must not add an unhandled rejection to its report.
  answer.catch(() => undefined);
  if (body === undefined || !hold) {
    request.end(body);
    return { answer, rest: () => undefined };
  }
  const half = Math.floor(body.length / 2);
  request.write(body.slice(0, half));
  return { answer, rest: () => request.end(body.slice(half)) };
}
