import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { verify as verifyArgon2 } from "@node-rs/argon2";

/**
 * How many password hashes may be compared at once. A bcrypt comparison takes tens to hundreds of
 * milliseconds of a core, so attempts beyond these are refused (429) without one (docs/api.md,
 * "The document list").
 */
export const PASSWORD_CHECKS_AT_ONCE = 2;

/**
 * The worker's code, a CommonJS script: bcryptjs compares on whichever thread calls it (its async
 * API only slices the work into turns of the same event loop, which it still fills), so it runs
 * in a worker thread; the main thread only waits for the answer.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const bcrypt = require(workerData.bcrypt);
parentPort.on("message", ({ password, hash }) => {
  let matches = false;
  try { matches = bcrypt.compareSync(password, hash); } catch { matches = false; }
  parentPort.postMessage(matches);
});`;

const BCRYPT_PATH = createRequire(import.meta.url).resolve("bcryptjs");

/** A comparison slot: one comparison, then released. */
export interface PasswordCheckSlot {
  /** Whether `password` matches `hash` (bcrypt, optionally `{bcrypt}`-prefixed, or argon2id). */
  compare(password: string, hash: string): Promise<boolean>;
  /** Frees the slot; called once, after the comparison (or instead of one). */
  release(): void;
}

/**
 * Compares passwords with hashes off the event loop, at most `atOnce` at a time: bcrypt in worker
 * threads (started when first needed and kept for the next comparisons), argon2id on libuv's thread
 * pool (its library's own async call). {@link take} refuses a slot when every one is busy.
 */
export class PasswordChecks {
  private running = 0;
  private readonly idle: Worker[] = [];
  private readonly workers = new Set<Worker>();
  private closed = false;

  constructor(private readonly atOnce = PASSWORD_CHECKS_AT_ONCE) {}

  /** A slot for one comparison, or `undefined` at once when `atOnce` are taken. */
  take(): PasswordCheckSlot | undefined {
    if (this.running >= this.atOnce || this.closed) return undefined;
    this.running++;
    let released = false;
    return {
      compare: (password, hash) => this.compare(password, hash),
      release: () => {
        if (released) return;
        released = true;
        this.running--;
      },
    };
  }

  /** Ends the workers (a comparison under way answers false). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.workers];
    this.workers.clear();
    this.idle.length = 0;
    await Promise.all(all.map((worker) => worker.terminate()));
  }

  private async compare(password: string, hash: string): Promise<boolean> {
    if (hash.startsWith("$argon2id$")) return verifyArgon2(hash, password).catch(() => false);
    const bare = hash.startsWith("{bcrypt}") ? hash.slice("{bcrypt}".length) : hash;
    if (this.closed) return false;
    const worker = this.idle.pop() ?? this.spawn();
    const matches = await new Promise<boolean>((resolve) => {
      const done = (result: boolean) => {
        worker.off("message", onMessage);
        worker.off("exit", onExit);
        resolve(result);
      };
      const onMessage = (result: unknown) => done(result === true);
      const onExit = () => done(false);
      worker.on("message", onMessage);
      worker.on("exit", onExit);
      worker.postMessage({ password, hash: bare });
    });
    if (this.workers.has(worker)) this.idle.push(worker);
    return matches;
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcrypt: BCRYPT_PATH } });
    // An idle worker never keeps the process alive; a crashed one is replaced by the next comparison.
    worker.unref();
    worker.on("error", () => undefined);
    worker.on("exit", () => {
      this.workers.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    });
    this.workers.add(worker);
    return worker;
  }
}
