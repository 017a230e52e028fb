/**
 * Which open page owns a clientId (see pending-store.ts): the page holding the Web Lock of that name
 * for as long as it lives. Web Locks need a secure context (HTTPS or localhost); elsewhere a heartbeat
 * in localStorage stands in: the owner rewrites its time every 15 s and removes it on pagehide, and
 * a heartbeat older than 10 minutes (a crashed page; a hidden tab's timers may run only once a
 * minute) counts as gone.
 */
const LOCK_PREFIX = "folio.client.";
const ALIVE_PREFIX = "folio.alive.";
const BEAT_MS = 15_000;
const STALE_MS = 600_000;

function locks(): LockManager | undefined {
  return typeof navigator !== "undefined" && "locks" in navigator ? navigator.locks : undefined;
}

/**
 * Takes `clientId` for this page until it goes away: true when it was free or became free within
 * `waitMs` (a page that is just unloading lets go of it a moment later), false when another page holds it.
 */
export async function claim(clientId: string, waitMs: number): Promise<boolean> {
  const manager = locks();
  if (!manager) return claimByHeartbeat(clientId, waitMs);
  const options: LockOptions = waitMs > 0 ? { signal: AbortSignal.timeout(waitMs) } : { ifAvailable: true };
  return new Promise<boolean>((resolve) => {
    manager
      .request(`${LOCK_PREFIX}${clientId}`, options, (lock) => {
        resolve(lock !== null);
        // Held until the page goes away.
        return lock ? new Promise<void>(() => undefined) : undefined;
      })
      .catch(() => resolve(false));
  });
}

/** Whether a living page holds `clientId`. */
export async function owned(clientId: string): Promise<boolean> {
  const manager = locks();
  if (!manager) return heartbeatFresh(clientId);
  const { held = [] } = await manager.query();
  return held.some((lock) => lock.name === `${LOCK_PREFIX}${clientId}`);
}

function heartbeatFresh(clientId: string): boolean {
  try {
    const beat = Number(window.localStorage.getItem(`${ALIVE_PREFIX}${clientId}`));
    return Number.isFinite(beat) && beat > 0 && Date.now() - beat < STALE_MS;
  } catch {
    return false;
  }
}

async function claimByHeartbeat(clientId: string, waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  while (heartbeatFresh(clientId)) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const key = `${ALIVE_PREFIX}${clientId}`;
  const beat = () => {
    try {
      window.localStorage.setItem(key, String(Date.now()));
    } catch {
      // Without storage nothing is kept for this clientId either: nobody else can adopt it.
    }
  };
  beat();
  const timer = setInterval(beat, BEAT_MS);
  window.addEventListener("pagehide", () => {
    clearInterval(timer);
    try {
      window.localStorage.removeItem(key);
    } catch {
      // As above.
    }
  });
  return true;
}
