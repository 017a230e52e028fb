/** The child side of a load generator: configuration in, JSON messages out over IPC. */

import type { LoadMessage } from "./processes.js";

/** Wall-clock ms with sub-ms resolution, comparable across the processes of one machine. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

export function sendToParent(message: LoadMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) {
      reject(new Error("not started with an IPC channel"));
      return;
    }
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

const inbox: LoadMessage[] = [];
const listeners = new Set<() => void>();
process.on("message", (message: LoadMessage) => {
  inbox.push(message);
  listeners.forEach((listener) => listener());
});

/** The next message of `type` from the parent; rejects after `timeoutMs`. */
export function fromParent<T extends LoadMessage>(type: string, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const check = () => {
      const at = inbox.findIndex((message) => message.type === type);
      if (at < 0) return;
      done();
      resolve(inbox.splice(at, 1)[0] as T);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no "${type}" from the parent within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      listeners.delete(check);
    };
    listeners.add(check);
    check();
  });
}

/**
 * Runs a load generator: reads its configuration from argv, sends `{ type: "result" }` with what
 * `main` returns (or `{ type: "error" }`), then exits. A lost parent ends the process at once.
 */
export function runChild<C, R>(main: (config: C) => Promise<R>): void {
  process.on("disconnect", () => process.exit(2));
  const config = JSON.parse(process.argv[2] ?? "{}") as C;
  main(config)
    .then(async (data) => {
      await sendToParent({ type: "result", data });
      process.exit(0);
    })
    .catch(async (error: unknown) => {
      const message = error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error);
      await sendToParent({ type: "error", message }).catch(() => undefined);
      process.exit(1);
    });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
