/**
 * fetch wrappers for the client suites: they record what the client sends and inject faults
 * between the client and a real service on loopback (the service itself is never mocked).
 */

export interface Sent {
  method: string;
  path: string;
  body: unknown;
  signal: AbortSignal | undefined;
  /** performance.now() when the client called fetch. */
  at: number;
  /** Whether the call has returned or thrown. */
  settled: boolean;
}

/** What a hook may do with one request: pass it on, answer it with a fault, or run it and lose the answer. */
export type Verdict =
  | { kind: "pass" }
  | { kind: "fail-before" }
  | { kind: "lose-answer" }
  | { kind: "answer"; status: number; headers?: Record<string, string>; body?: unknown }
  | { kind: "hold"; until: Promise<void>; then?: Verdict }
  | { kind: "tamper"; change: (body: Record<string, unknown>) => Record<string, unknown> }
  | { kind: "edit-answer"; change: (body: unknown, status: number) => unknown }
  /** Answers with a response the hook makes (a stream that never sends, as a buffering proxy's). */
  | { kind: "respond"; response: () => Response };

export type Hook = (request: Sent, index: number) => Verdict | undefined;

export interface RecordingFetch {
  fetch: typeof fetch;
  sent: Sent[];
  /** The requests of one method whose path ends with `suffix` (query left out). */
  calls(method: string, suffix: string): Sent[];
  hook: Hook | undefined;
}

export function recordingFetch(): RecordingFetch {
  const record: RecordingFetch = {
    sent: [],
    hook: undefined,
    calls: (method, suffix) => record.sent.filter((request) => request.method === method && request.path.split("?")[0]!.endsWith(suffix)),
    fetch: async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      const request: Sent = {
        method: init?.method ?? "GET",
        path: url.pathname + url.search,
        body: typeof init?.body === "string" ? (JSON.parse(init.body) as unknown) : undefined,
        signal: init?.signal ?? undefined,
        at: performance.now(),
        settled: false,
      };
      const index = record.sent.push(request) - 1;
      try {
        return await perform(record.hook?.(request, index) ?? { kind: "pass" }, request, input, init);
      } finally {
        request.settled = true;
      }
    },
  };
  return record;
}

async function perform(verdict: Verdict, request: Sent, input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
  switch (verdict.kind) {
    case "fail-before":
      throw new TypeError("fetch failed (injected before sending)");
    case "answer":
      return new Response(verdict.body === undefined ? null : JSON.stringify(verdict.body), {
        status: verdict.status,
        headers: { "content-type": "application/problem+json", ...verdict.headers },
      });
    case "respond":
      return verdict.response();
    case "hold":
      await verdict.until;
      return perform(verdict.then ?? { kind: "pass" }, request, input, init);
    case "tamper": {
      const body = verdict.change(request.body as Record<string, unknown>);
      return globalThis.fetch(input, { ...init, body: JSON.stringify(body) });
    }
    case "edit-answer": {
      const response = await globalThis.fetch(input, init);
      const text = await response.text();
      const body = verdict.change(text === "" ? undefined : (JSON.parse(text) as unknown), response.status);
      return new Response(body === undefined ? null : JSON.stringify(body), { status: response.status, headers: response.headers });
    }
    case "lose-answer": {
      const response = await globalThis.fetch(input, init);
      await response.arrayBuffer();
      throw new TypeError("fetch failed (answer lost, injected after the service answered)");
    }
    default:
      return globalThis.fetch(input, init);
  }
}

/** A latch: `promise` resolves once `open()` is called. */
export function latch(): { promise: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
