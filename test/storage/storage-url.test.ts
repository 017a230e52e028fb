import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/config.js";
import { parseStorageUrl, redactStorageUrl } from "../../src/storage/storage-url.js";

function errorOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected an error");
}

describe("parseStorageUrl", () => {
  it("reads sqlite:<path> and sqlite::memory: as SQLite locations", () => {
    expect(parseStorageUrl("sqlite:./data/service.db")).toEqual({ kind: "sqlite", path: "./data/service.db" });
    expect(parseStorageUrl("sqlite::memory:")).toEqual({ kind: "sqlite", path: ":memory:" });
  });

  it("uses the schema public when a PostgreSQL URL names none, and passes the URL on unchanged", () => {
    expect(parseStorageUrl("postgres://folio:secret@db.example:5432/folio")).toEqual({
      kind: "postgres",
      connectionString: "postgres://folio:secret@db.example:5432/folio",
      schema: "public",
    });
    expect(parseStorageUrl("postgresql://db.example/folio")).toEqual({
      kind: "postgres",
      connectionString: "postgresql://db.example/folio",
      schema: "public",
    });
  });

  it("takes the schema query parameter out of the URL and keeps every other parameter byte for byte", () => {
    expect(parseStorageUrl("postgres://u@h/db?schema=folio")).toEqual({ kind: "postgres", connectionString: "postgres://u@h/db", schema: "folio" });
    expect(parseStorageUrl("postgres://u@h/db?sslmode=require&schema=folio_2&application_name=a%20b")).toEqual({
      kind: "postgres",
      connectionString: "postgres://u@h/db?sslmode=require&application_name=a%20b",
      schema: "folio_2",
    });
    expect(parseStorageUrl("postgres://u@h/db?schema=%5Ftenant")).toMatchObject({ connectionString: "postgres://u@h/db", schema: "_tenant" });
  });

  it.each([
    ["upper case", "postgres://u@h/db?schema=Folio", 'schema "Folio" is not a lower-case identifier'],
    ["a quote", "postgres://u@h/db?schema=x%22%3B%20DROP", 'schema "x\\"; DROP" is not a lower-case identifier'],
    ["empty", "postgres://u@h/db?schema=", 'schema "" is not a lower-case identifier'],
    ["a leading digit", "postgres://u@h/db?schema=1a", 'schema "1a" is not a lower-case identifier'],
    ["64 characters", `postgres://u@h/db?schema=${"a".repeat(64)}`, `schema "${"a".repeat(64)}" is not a lower-case identifier`],
  ])("refuses a schema parameter with %s", (_name, url, message) => {
    expect(errorOf(() => parseStorageUrl(url))).toBe(
      `${message} (a-z, 0-9, _; at most 63 characters, not starting with a digit)`,
    );
  });

  it("refuses a schema parameter given twice", () => {
    expect(errorOf(() => parseStorageUrl("postgres://u@h/db?schema=a&schema=b"))).toBe("the schema parameter is given more than once");
  });

  it("refuses an unknown scheme and a sqlite: URL without a path", () => {
    expect(errorOf(() => parseStorageUrl("mysql://h/db"))).toBe('unknown storage scheme in "mysql:"; use sqlite:<path>, sqlite::memory: or postgres://…');
    expect(errorOf(() => parseStorageUrl("sqlite:"))).toBe('"sqlite:" names no file');
  });
});

describe("redactStorageUrl", () => {
  it("replaces the password of the user info and of a password parameter, and keeps the rest", () => {
    expect(redactStorageUrl("postgres://folio:hunter2@db.example:5432/folio?schema=f")).toBe("postgres://folio:***@db.example:5432/folio?schema=f");
    expect(redactStorageUrl("postgres://folio@db.example/folio?password=hunter2&sslpassword=x&schema=f")).toBe(
      "postgres://folio@db.example/folio?password=***&sslpassword=***&schema=f",
    );
  });

  it("hides a password that holds an @ entirely", () => {
    const redacted = redactStorageUrl("postgres://folio:hun@ter2@db.example/folio");
    expect(redacted).toBe("postgres://folio:***@db.example/folio");
  });

  it("hides the password of a URL it cannot parse", () => {
    expect(redactStorageUrl("postgres://folio:hun@ter2@db.example:99999/folio")).toBe("postgres://folio:***@db.example:99999/folio");
  });

  it("leaves URLs without a password and SQLite paths as they are", () => {
    expect(redactStorageUrl("postgres://folio@db.example/folio")).toBe("postgres://folio@db.example/folio");
    expect(redactStorageUrl("sqlite:./data/service.db")).toBe("sqlite:./data/service.db");
  });
});

describe("service.storage.url with a schema parameter", () => {
  it("is accepted as given", () => {
    const config = loadConfig({ env: { SERVICE_STORAGE_URL: "postgres://folio@db.example/folio?schema=tenant_a" }, file: null });
    expect(config.storage.url).toBe("postgres://folio@db.example/folio?schema=tenant_a");
  });

  it("stops the start with one line naming the key when the schema is not a plain identifier, without the password", () => {
    const message = errorOf(() => loadConfig({ env: { SERVICE_STORAGE_URL: "postgres://folio:hunter2@db.example/folio?schema=Tenant" }, file: null }));
    expect(message).toBe(
      'service.storage.url (SERVICE_STORAGE_URL): schema "Tenant" is not a lower-case identifier (a-z, 0-9, _; at most 63 characters, not starting with a digit)',
    );
    expect(() => loadConfig({ env: { DATABASE_URL: "postgres://h/db?schema=a&schema=b" }, file: null })).toThrow(ConfigError);
  });
});
