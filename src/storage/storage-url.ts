/** Where the service keeps its data, as named by `service.storage.url`. */
export type StorageLocation =
  | { kind: "sqlite"; path: string }
  | {
      kind: "postgres";
      /** The URL as node-postgres takes it: the `schema` parameter removed, everything else untouched. */
      connectionString: string;
      /** The schema holding the tables. */
      schema: string;
    };

/** The schema a PostgreSQL store uses when the URL names none. */
export const DEFAULT_POSTGRES_SCHEMA = "public";

/** A schema name the PostgreSQL store accepts: a plain lower-case identifier, so it never needs quoting. */
export const POSTGRES_SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A storage URL that cannot be used; the message never contains a password. */
export class StorageUrlError extends Error {
  override readonly name = "StorageUrlError";
}

/**
 * Reads a storage URL: `sqlite:<path>`, `sqlite::memory:`, or `postgres://…` / `postgresql://…`
 * with an optional `schema` query parameter (default {@link DEFAULT_POSTGRES_SCHEMA}). The schema is
 * always explicit, never left to the connection's `search_path`, so that every instance finds the
 * same tables whatever role it connects as.
 */
export function parseStorageUrl(url: string): StorageLocation {
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length);
    if (path === "") throw new StorageUrlError(`"${url}" names no file`);
    return { kind: "sqlite", path };
  }
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return parsePostgresUrl(url);
  throw new StorageUrlError(`unknown storage scheme in "${url.split(":")[0]}:"; use sqlite:<path>, sqlite::memory: or postgres://…`);
}

function parsePostgresUrl(url: string): StorageLocation {
  try {
    new URL(url);
  } catch {
    throw new StorageUrlError(`"${redactStorageUrl(url)}" is not a valid PostgreSQL URL`);
  }
  // The query is edited as text rather than re-serialized through URLSearchParams, so that every
  // other parameter reaches node-postgres byte for byte.
  const hashAt = url.indexOf("#");
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf("?");
  if (queryAt === -1) return { kind: "postgres", connectionString: url, schema: DEFAULT_POSTGRES_SCHEMA };
  const kept: string[] = [];
  const schemas: string[] = [];
  for (const pair of beforeHash.slice(queryAt + 1).split("&")) {
    const [key = "", ...rest] = pair.split("=");
    if (decodeParameter(key) === "schema") schemas.push(decodeParameter(rest.join("=")));
    else if (pair !== "") kept.push(pair);
  }
  if (schemas.length > 1) throw new StorageUrlError("the schema parameter is given more than once");
  const schema = schemas[0] ?? DEFAULT_POSTGRES_SCHEMA;
  if (!POSTGRES_SCHEMA_NAME.test(schema)) {
    throw new StorageUrlError(`schema ${JSON.stringify(schema)} is not a lower-case identifier (a-z, 0-9, _; at most 63 characters, not starting with a digit)`);
  }
  const base = beforeHash.slice(0, queryAt);
  const connectionString = (kept.length > 0 ? `${base}?${kept.join("&")}` : base) + (hashAt === -1 ? "" : url.slice(hashAt));
  return { kind: "postgres", connectionString, schema };
}

function decodeParameter(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

/**
 * The URL with every password replaced by `***`: the one in the user info and any query parameter
 * whose name mentions a password (node-postgres reads `?password=`), for logs and error messages.
 */
export function redactStorageUrl(url: string): string {
  if (url.startsWith("sqlite:")) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Unparseable: hide everything between the user name and the last "@" of the authority.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):[^/?#]*@/i, "$1:***@").replace(/(password=)[^&#]*/gi, "$1***");
  }
  if (parsed.password !== "") parsed.password = "***";
  let text = parsed.toString();
  if (parsed.search !== "") {
    const queryAt = text.indexOf("?");
    text = text.slice(0, queryAt) + text.slice(queryAt).replace(/([?&][^=&#]*password[^=&#]*=)[^&#]*/gi, "$1***");
  }
  return text;
}
