/**
 * What the page keeps in the browser: the display name and the recently opened documents in
 * localStorage, the tracker session in sessionStorage only (it must never reach the document or a
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

export function rememberDocument(id: string, title: string): void {
  const rest = recentDocuments().filter((entry) => entry.id !== id);
  const next = [{ id, title, openedAt: new Date().toISOString() }, ...rest].slice(0, MAX_RECENT);
  write(local, RECENT_KEY, JSON.stringify(next));
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
