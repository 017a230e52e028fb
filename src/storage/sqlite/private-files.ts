import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { StorageUnusableError } from "../store.js";

/** Data files are the owner's alone: every document and its history are in them. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Prepares the files of a SQLite store at `path` before SQLite opens them: creates the directory
 * (0700) and each file (0600) that does not exist yet, so that SQLite's own files (its WAL and
 * shared memory, which it creates with the database file's mode) are private too. Files that exist
 * keep their modes: an operator may have chosen them. What cannot be written is refused with
 * {@link StorageUnusableError} naming the path and the user, instead of SQLite's bare
 * SQLITE_CANTOPEN (docs/container.md: the image under any user id).
 */
export function preparePrivateFiles(paths: readonly string[]): void {
  for (const path of paths) {
    const directory = dirname(path);
    try {
      mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    } catch (error) {
      throw unusable(directory, "cannot create the directory", error);
    }
    try {
      if (existsSync(path)) accessSync(path, constants.R_OK | constants.W_OK);
      else {
        accessSync(directory, constants.W_OK | constants.X_OK);
        closeSync(openSync(path, "a", PRIVATE_FILE_MODE));
      }
    } catch (error) {
      throw unusable(existsSync(path) ? path : directory, existsSync(path) ? "cannot read and write the file" : "cannot create files in the directory", error);
    }
  }
}

function unusable(path: string, what: string, error: unknown): StorageUnusableError {
  const code = (error as { code?: string }).code ?? "error";
  const who = typeof process.getuid === "function" ? ` as user ${process.getuid()} (group ${process.getgid?.() ?? "?"})` : "";
  return new StorageUnusableError(
    `${what} ${path}${who}: ${code}; give that user (or its group, with write permission) the directory, or point service.storage.url elsewhere`,
  );
}
