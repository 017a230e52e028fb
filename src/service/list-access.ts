import bcrypt from "bcryptjs";
import { verify as verifyArgon2 } from "@node-rs/argon2";
import type { Config } from "../config/config.js";
import type { Store } from "../storage/store.js";
import type { Clock } from "./clock.js";
import type { ServiceEvents } from "./observer.js";
import { ServiceError } from "./service-error.js";

/** The fixed user name of the protected document list. */
const LIST_USER = "admin";

export interface ListAccessOptions {
  store: Store;
  clock: Clock;
  config: Config["masterPassword"];
  /** Told of every failed attempt, and of the one that locks the list (the operator's warning). */
  events?: ServiceEvents;
}

/**
 * Guards the document list with the master password and the global lock: after `maxFailures`
 * consecutive failures the list answers 429 to everybody, the right password included, for
 * `lockSeconds`. The count and the lock live in the store, so they hold across instances.
 */
export class ListAccess {
  constructor(private readonly options: ListAccessOptions) {}

  /** Resolves when `credentials` (user and password of HTTP Basic) may read the list; throws otherwise. */
  async check(credentials: { user: string; password: string } | undefined): Promise<void> {
    const { store, config } = this.options;
    await this.refuseWhileLocked();
    const right =
      credentials !== undefined && credentials.user === LIST_USER && config.hash !== undefined && (await matches(credentials.password, config.hash));
    // The comparison takes a while. A lock that attempts running in parallel (here or on another
    // instance) set meanwhile holds for this attempt too: otherwise any number of parallel guesses
    // would be judged past the limit, and their 200 or 401 would tell the right one.
    await this.refuseWhileLocked();
    if (right) {
      await store.resetListFailures();
      return;
    }
    // The attempt that reaches the limit is still answered as the failure it is; the lock
    // answers from the next attempt on.
    const now = this.options.clock.now();
    const state = await store.recordListFailure(now, config.maxFailures, config.lockSeconds * 1000);
    // This attempt locked the list when the lock now ends exactly one lock period from now.
    this.options.events?.listFailure(state.lockedUntil === now + config.lockSeconds * 1000 ? state.lockedUntil : undefined);
    throw new ServiceError("credentials-required", config.hash ? "user or password is wrong" : "the document list is locked: no master password is configured");
  }

  private async refuseWhileLocked(): Promise<void> {
    const lock = await this.options.store.getListLock();
    const now = this.options.clock.now();
    if (lock.lockedUntil > now) throw locked(lock.lockedUntil - now);
  }
}

function locked(remainingMs: number): ServiceError {
  const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return new ServiceError("list-locked", `too many failed attempts; try again in ${seconds} s`, { retryAfterSeconds: seconds });
}

/** Compares through the hash function only (bcrypt in constant time per hash; argon2id by its library). */
async function matches(password: string, hash: string): Promise<boolean> {
  try {
    if (hash.startsWith("$argon2id$")) return await verifyArgon2(hash, password);
    const bare = hash.startsWith("{bcrypt}") ? hash.slice("{bcrypt}".length) : hash;
    return await bcrypt.compare(password, bare);
  } catch {
    return false;
  }
}
