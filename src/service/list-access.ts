import type { Config } from "../config/config.js";
import type { Store } from "../storage/store.js";
import type { Clock } from "./clock.js";
import type { ServiceEvents } from "./observer.js";
import { PasswordChecks } from "./password-checks.js";
import { ServiceError } from "./service-error.js";

/** The fixed user name of the protected document list. */
const LIST_USER = "admin";

/** The 401's detail for a request that made no attempt (no Basic credentials, or a HEAD). */
export const NO_CREDENTIALS = "no HTTP Basic credentials: send user admin and the master password";

/** User and password of an HTTP Basic attempt. */
export interface BasicCredentials {
  user: string;
  password: string;
}

export interface ListAccessOptions {
  store: Store;
  clock: Clock;
  config: Config["masterPassword"];
  /** Told of every failed attempt, and of the one that locks the list (the operator's warning). */
  events?: ServiceEvents;
  /** Where hashes are compared (default: worker threads, PASSWORD_CHECKS_AT_ONCE at a time). */
  checks?: PasswordChecks;
}

/**
 * Guards the document list with the master password and the global lock: after `maxFailures`
 * consecutive failures the list answers 429 to everybody, the right password included, for
 * `lockSeconds`. The count and the lock live in the store, so they hold across instances.
 *
 * Only an attempt counts: a request without Basic credentials is answered 401 and changes nothing,
 * so a crawler, a monitor or an image on some page cannot lock the owner out. An attempt reserves
 * its failure before its hash is compared, so however many arrive in parallel (here or on other
 * instances) at most `maxFailures` are compared before the lock: the others are refused 429
 * unchecked. A success gives its reservation back (and lifts the lock when its own reservation set
 * it). Comparisons run off the event loop, a few at a time; beyond those, 429 without comparing.
 */
export class ListAccess {
  private readonly checks: PasswordChecks;

  constructor(private readonly options: ListAccessOptions) {
    this.checks = options.checks ?? new PasswordChecks();
  }

  /** Resolves when `credentials` (user and password of HTTP Basic) may read the list; throws otherwise. */
  async check(credentials: BasicCredentials | undefined): Promise<void> {
    const { store, config, clock } = this.options;
    await this.refuseWhileLocked();
    if (credentials === undefined) throw new ServiceError("credentials-required", NO_CREDENTIALS);
    const hash = credentials.user === LIST_USER ? config.hash : undefined;
    // The slot first: an attempt that cannot be compared now reserves nothing.
    const slot = hash === undefined ? undefined : this.checks.take();
    if (hash !== undefined && slot === undefined) throw busy();
    try {
      const now = clock.now();
      const reserved = await store.recordListFailure(now, config.maxFailures, config.lockSeconds * 1000);
      if (!reserved.counted) throw locked(reserved.lockedUntil - now);
      // This reservation reached the limit: the lock is its own, lifted if the password is right.
      const lockedByThis = reserved.lockedUntil > now ? reserved.lockedUntil : undefined;
      if (hash !== undefined && (await slot?.compare(credentials.password, hash)) === true) {
        await store.resetListFailures(lockedByThis);
        return;
      }
      this.options.events?.listFailure(lockedByThis);
    } finally {
      slot?.release();
    }
    throw new ServiceError("credentials-required", config.hash ? "user or password is wrong" : "the document list is locked: no master password is configured");
  }

  /** Ends the comparisons' worker threads. */
  close(): Promise<void> {
    return this.checks.close();
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

function busy(): ServiceError {
  return new ServiceError("list-busy", "too many password checks under way; try again in 1 s", { retryAfterSeconds: 1 });
}
