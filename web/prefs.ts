/**
 * What the page keeps in the browser: the display name and the recently opened documents in
 * localStorage (an encrypted document only when its reader chose "Remember on this device", and then
 * with its key: docs/encryption.md#remembered-on-this-device), the tracker session in sessionStorage only (it must never reach the document or a
 * URL, and it ends with the tab). Storage may be unavailable (private modes): every call degrades to
 * "nothing stored".
 */
import type { TrackerSession } from "../src/client/index.js";

const NAME_KEY = "folio.displayName";
const RECENT_KEY = "folio.recent";
const TRACKER_KEY = "folio.trackerSession";
const MAX_RECENT = 20;

export interface RecentDocument {
  id: string;
  title: string;
  openedAt: string;
  /** An encrypted document's key, stored only by the reader's choice. */
  key?: string;
}

function read(storage: () => Storage, key: string): string | null {
  try {
    return storage().getItem(key);
  } catch {
    return null;
  }
}

function write(storage: () => Storage, key: string, value: string | undefined): void {
  try {
    if (value === undefined) storage().removeItem(key);
    else storage().setItem(key, value);
  } catch {
    // Nothing stored: the page still works for this visit.
  }
}

const local = () => window.localStorage;
const session = () => window.sessionStorage;

export function displayName(): string {
  return read(local, NAME_KEY) ?? "";
}

export function setDisplayName(name: string): void {
  write(local, NAME_KEY, name === "" ? undefined : name);
}

export function recentDocuments(): RecentDocument[] {
  try {
    const parsed: unknown = JSON.parse(read(local, RECENT_KEY) ?? "[]");
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (entry): entry is RecentDocument =>
        typeof entry === "object" && entry !== null && typeof (entry as RecentDocument).id === "string" && typeof (entry as RecentDocument).title === "string",
    );
  } catch {
    return [];
  }
}

/** Puts the document first in the recent list; an entry's key is kept unless a new one is given. */
export function rememberDocument(id: string, title: string, key?: string): void {
  const recent = recentDocuments();
  const kept = key ?? recent.find((entry) => entry.id === id)?.key;
  const rest = recent.filter((entry) => entry.id !== id);
  const next = [{ id, title, openedAt: new Date().toISOString(), ...(kept !== undefined ? { key: kept } : {}) }, ...rest].slice(0, MAX_RECENT);
  write(local, RECENT_KEY, JSON.stringify(next));
}

/** True when this browser keeps the document's key (its reader chose "Remember on this device"). */
export function keyRemembered(id: string): boolean {
  return recentDocuments().some((entry) => entry.id === id && entry.key !== undefined);
}

export function forgetDocument(id: string): void {
  write(local, RECENT_KEY, JSON.stringify(recentDocuments().filter((entry) => entry.id !== id)));
}

export function trackerSession(): TrackerSession | undefined {
  try {
    const parsed = JSON.parse(read(session, TRACKER_KEY) ?? "null") as TrackerSession | null;
    return parsed && typeof parsed.authToken === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function setTrackerSession(value: TrackerSession | undefined): void {
  write(session, TRACKER_KEY, value === undefined ? undefined : JSON.stringify(value));
}
