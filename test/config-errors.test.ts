import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config/config.js";
import { ARGON2ID_HASH, BCRYPT_HASH, DEFAULTS, configFolderPerTest } from "./support/config-values.js";
import { startProcess } from "./support/server-process.js";

/* Bad configuration values: the ConfigError naming the key, and the server exiting with it. Where values come from: config-sources.test.ts. */

const folder = configFolderPerTest();
const yamlFile = folder.yamlFile;

/** Loads with only `env` (no file) and returns the ConfigError's message, failing when nothing is thrown. */
function errorOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected a ConfigError, but the configuration loaded");
}

const fromEnv = (env: Record<string, string>) => () => loadConfig({ env, file: null });

describe("loadConfig: bad values throw a ConfigError naming the key", () => {
  it("refuses a number that is not a number, naming key and variable", () => {
    expect(errorOf(fromEnv({ SERVICE_TRACKER_TIMEOUT_MS: "abc" }))).toBe(
      'service.tracker.timeout-ms (SERVICE_TRACKER_TIMEOUT_MS): "abc" is not a whole number',
    );
  });

  it("refuses a number that is not a number in the file, naming the key", () => {
    expect(errorOf(() => loadConfig({ env: {}, file: yamlFile("server:\n  port: eighty\n") }))).toBe('server.port: "eighty" is not a whole number');
  });

  it("refuses a fraction and a negative number", () => {
    expect(errorOf(fromEnv({ SERVICE_FEED_MAX_WAIT_SECONDS: "1.5" }))).toBe(
      'service.feed.max-wait-seconds (SERVICE_FEED_MAX_WAIT_SECONDS): "1.5" is not a whole number',
    );
    expect(errorOf(fromEnv({ SERVICE_MASTER_PASSWORD_LOCK_SECONDS: "-1" }))).toBe(
      'service.master-password.lock-seconds (SERVICE_MASTER_PASSWORD_LOCK_SECONDS): "-1" is not a whole number',
    );
  });

  it("refuses a number out of range", () => {
    expect(errorOf(fromEnv({ SERVER_PORT: "70000" }))).toBe("server.port (SERVER_PORT): 70000 is outside 0..65535");
    expect(errorOf(fromEnv({ SERVICE_MASTER_PASSWORD_MAX_FAILURES: "0" }))).toBe(
      "service.master-password.max-failures (SERVICE_MASTER_PASSWORD_MAX_FAILURES): 0 is outside 1..1000000",
    );
  });

  it("reads the rate limits from their variables, 0 (off) included, and refuses a negative one", () => {
    const env = {
      SERVICE_RATE_LIMIT_CREATES_PER_MINUTE: "0",
      SERVICE_RATE_LIMIT_WRITES_PER_SECOND: "25",
      SERVICE_RATE_LIMIT_READS_PER_SECOND: "0",
      SERVICE_RATE_LIMIT_WAITS_PER_ADDRESS: "7",
      SERVICE_RATE_LIMIT_TRACKER_LOGINS_PER_MINUTE: "0",
      SERVICE_RATE_LIMIT_TRACKER_READS_PER_SECOND: "3",
    };
    expect(fromEnv(env)().rateLimit).toEqual({
      createsPerMinute: 0,
      writesPerSecond: 25,
      readsPerSecond: 0,
      waitsPerAddress: 7,
      trackerLoginsPerMinute: 0,
      trackerReadsPerSecond: 3,
    });
    expect(errorOf(fromEnv({ SERVICE_RATE_LIMIT_WRITES_PER_SECOND: "-1" }))).toBe(
      'service.rate-limit.writes-per-second (SERVICE_RATE_LIMIT_WRITES_PER_SECOND): "-1" is not a whole number',
    );
  });

  it("refuses a drain limit of 0", () => {
    expect(errorOf(fromEnv({ SERVER_SHUTDOWN_TIMEOUT_SECONDS: "0" }))).toBe("server.shutdown-timeout-seconds (SERVER_SHUTDOWN_TIMEOUT_SECONDS): 0 is outside 1..3600");
  });

  it("names the alias that carried a bad value", () => {
    expect(errorOf(fromEnv({ PORT: "abc" }))).toBe('server.port (PORT): "abc" is not a whole number');
    expect(errorOf(fromEnv({ DATABASE_URL: "mysql://db/folio" }))).toBe(
      'service.storage.url (DATABASE_URL): unknown storage scheme in "mysql:"; use sqlite:<path>, sqlite::memory: or postgres://…',
    );
  });

  it("refuses a malformed URL", () => {
    expect(errorOf(fromEnv({ SERVICE_TRACKER_API_URL: "tracker.example/api" }))).toBe(
      'service.tracker.api-url (SERVICE_TRACKER_API_URL): "tracker.example/api" is not a URL',
    );
  });

  it("refuses a tracker URL that is not http(s) or carries a query", () => {
    expect(errorOf(fromEnv({ SERVICE_TRACKER_WEB_URL: "ftp://tracker.example" }))).toBe(
      'service.tracker.web-url (SERVICE_TRACKER_WEB_URL): "ftp://tracker.example" is not an http(s) URL',
    );
    expect(errorOf(fromEnv({ SERVICE_TRACKER_API_URL: "https://tracker.example/api?x=1" }))).toBe(
      'service.tracker.api-url (SERVICE_TRACKER_API_URL): "https://tracker.example/api?x=1" must not carry a query or fragment',
    );
  });

  it("refuses an unknown storage scheme", () => {
    expect(errorOf(fromEnv({ SERVICE_STORAGE_URL: "redis://localhost" }))).toBe(
      'service.storage.url (SERVICE_STORAGE_URL): unknown storage scheme in "redis:"; use sqlite:<path>, sqlite::memory: or postgres://…',
    );
  });

  it("refuses sqlite: without a path", () => {
    expect(errorOf(fromEnv({ SERVICE_STORAGE_URL: "sqlite:" }))).toBe('service.storage.url (SERVICE_STORAGE_URL): "sqlite:" names no file');
  });

  it("refuses a malformed PostgreSQL URL without printing its password", () => {
    const message = errorOf(fromEnv({ SERVICE_STORAGE_URL: "postgres://folio:hunter2@db.example:99999/folio" }));

    expect(message).toBe('service.storage.url (SERVICE_STORAGE_URL): "postgres://folio:***@db.example:99999/folio" is not a valid PostgreSQL URL');
  });

  it("refuses an unreadable hash without printing it", () => {
    const message = errorOf(fromEnv({ SERVICE_MASTER_PASSWORD_HASH: "plain-text-password" }));

    expect(message).toBe(
      "service.master-password.hash (SERVICE_MASTER_PASSWORD_HASH): not a bcrypt ($2a$/$2b$/$2y$, optionally {bcrypt}-prefixed) or $argon2id$ hash",
    );
  });

  it("refuses a truncated bcrypt hash and an argon2i (not argon2id) hash", () => {
    for (const hash of [BCRYPT_HASH.slice(0, -1), ARGON2ID_HASH.replace("$argon2id$", "$argon2i$")]) {
      expect(errorOf(fromEnv({ SERVICE_MASTER_PASSWORD_HASH: hash }))).toMatch(/^service\.master-password\.hash \(SERVICE_MASTER_PASSWORD_HASH\): /);
    }
  });

  it("refuses a malformed CORS origin", () => {
    expect(errorOf(fromEnv({ SERVICE_CORS_ORIGINS: "https://ok.example, not an origin" }))).toBe(
      'service.cors.origins (SERVICE_CORS_ORIGINS): "not an origin" is not an origin',
    );
  });

  it("reads server.trust-proxy as true, false or addresses, and refuses anything else", () => {
    expect(fromEnv({ SERVER_TRUST_PROXY: "true" })().server.trustProxy).toBe(true);
    expect(fromEnv({ SERVER_TRUST_PROXY: "FALSE" })().server.trustProxy).toBe(false);
    expect(fromEnv({ SERVER_TRUST_PROXY: "::1, 192.168.0.0/16" })().server.trustProxy).toEqual(["::1", "192.168.0.0/16"]);
    expect(errorOf(fromEnv({ SERVER_TRUST_PROXY: "yes" }))).toBe('server.trust-proxy (SERVER_TRUST_PROXY): "yes" is not true, false, an IP address or a CIDR range');
    expect(errorOf(fromEnv({ SERVER_TRUST_PROXY: "10.0.0.0/33" }))).toBe('server.trust-proxy (SERVER_TRUST_PROXY): "10.0.0.0/33" is not true, false, an IP address or a CIDR range');
  });

  it("reads service.metrics.enabled as true or false only", () => {
    expect(fromEnv({ SERVICE_METRICS_ENABLED: "false" })().metrics).toEqual({ enabled: false });
    expect(errorOf(fromEnv({ SERVICE_METRICS_ENABLED: "0" }))).toBe('service.metrics.enabled (SERVICE_METRICS_ENABLED): "0" is neither true nor false');
  });

  it("refuses an empty login type", () => {
    expect(errorOf(fromEnv({ SERVICE_TRACKER_LOGIN_TYPE: "  " }))).toBe("service.tracker.login-type (SERVICE_TRACKER_LOGIN_TYPE): must not be empty");
  });

  it("refuses a mapping where a value belongs", () => {
    expect(errorOf(() => loadConfig({ env: {}, file: yamlFile("server:\n  port:\n    value: 1\n") }))).toBe("server.port: expects a value, found a mapping");
  });

  it("refuses an unknown key in the file, naming it and the nearest known key", () => {
    const path = yamlFile("service:\n  master-password:\n    hahs: x\n");

    expect(errorOf(() => loadConfig({ env: {}, file: path }))).toBe(
      `config file ${path}: unknown key service.master-password.hahs (did you mean service.master-password.hash?)`,
    );
  });

  it("refuses an unknown section and an unknown top-level key, even when the environment sets every value", () => {
    const section = yamlFile("service:\n  storrage:\n    url: \"sqlite::memory:\"\n", "section.yaml");
    const top = yamlFile("port: 9000\n", "top.yaml");

    expect(errorOf(() => loadConfig({ env: { SERVICE_STORAGE_URL: "sqlite::memory:" }, file: section }))).toBe(
      `config file ${section}: unknown key service.storrage (did you mean service.storage.url?)`,
    );
    expect(errorOf(() => loadConfig({ env: {}, file: top }))).toBe(`config file ${top}: unknown key port (did you mean server.port?)`);
  });

  it("applies dotted keys as the nested keys they spell, beside nested sections, and refuses a key given both ways, naming it", () => {
    const dotted = yamlFile("server.port: 9999\nservice.tracker.api-url: https://tracker.example/api/v1\nservice:\n  feed:\n    max-wait-seconds: 30\n", "dotted.yaml");
    const config = loadConfig({ env: {}, file: dotted });
    expect([config.server.port, config.tracker.apiUrl, config.feed.maxWaitSeconds]).toEqual([9999, "https://tracker.example/api/v1", 30]);
    const unknown = yamlFile("server.prot: 1\n", "unknown.yaml");
    expect(errorOf(() => loadConfig({ env: {}, file: unknown }))).toBe(`config file ${unknown}: unknown key server.prot (did you mean server.port?)`);
    const twice = yamlFile("server.port: 1\nserver:\n  port: 2\n", "twice.yaml");
    expect(errorOf(() => loadConfig({ env: {}, file: twice }))).toBe(`config file ${twice}: server.port is given twice (as a dotted key and nested, or twice)`);
    const below = yamlFile("server: 1\nserver.port: 2\n", "below.yaml");
    expect(errorOf(() => loadConfig({ env: {}, file: below }))).toBe(`config file ${below}: server is given a value and keys below it`);
  });

  it("refuses a value where a section belongs and a file that is not a mapping", () => {
    const value = yamlFile("service: yes\n", "value.yaml");
    const list = yamlFile("- a\n- b\n", "list.yaml");

    expect(errorOf(() => loadConfig({ env: {}, file: value }))).toBe(`config file ${value}: service expects a mapping of keys`);
    expect(errorOf(() => loadConfig({ env: {}, file: list }))).toBe(`config file ${list}: expects a mapping of keys at the top`);
  });

  it("accepts an empty file and an empty section", () => {
    expect(loadConfig({ env: {}, file: yamlFile("") })).toEqual(DEFAULTS);
    expect(loadConfig({ env: {}, file: yamlFile("service:\n") })).toEqual(DEFAULTS);
  });

  it("reads LOG_LEVEL as the key log.level and refuses a level pino does not know", () => {
    expect(loadConfig({ env: { LOG_LEVEL: "DEBUG" }, file: null }).log.level).toBe("debug");
    expect(errorOf(fromEnv({ LOG_LEVEL: "verbose" }))).toBe('log.level (LOG_LEVEL): "verbose" is not one of fatal, error, warn, info, debug, trace, silent');
  });

  it("refuses a file that is not YAML, naming the file", () => {
    const path = yamlFile("server:\n  port: [1, 2\n");

    expect(errorOf(() => loadConfig({ env: {}, file: path }))).toMatch(new RegExp(`^config file ${escape(path)}: not valid YAML \\(.+\\)$`));
  });

  it("refuses bad YAML in the file named by SERVICE_CONFIG_FILE, naming the variable", () => {
    const path = yamlFile("server: [\n", "broken.yaml");

    expect(errorOf(() => loadConfig({ env: { SERVICE_CONFIG_FILE: path } }))).toMatch(
      new RegExp(`^SERVICE_CONFIG_FILE: config file ${escape(path)}: not valid YAML \\(.+\\)$`),
    );
  });

  it("refuses a SERVICE_CONFIG_FILE that does not exist, naming the variable", () => {
    const path = join(folder.dir, "missing.yaml");

    expect(errorOf(() => loadConfig({ env: { SERVICE_CONFIG_FILE: path } }))).toBe(
      `SERVICE_CONFIG_FILE: config file ${path}: ENOENT: no such file or directory, open '${path}'`,
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("the server with a bad configuration", () => {
  it("exits non-zero with one line on stderr that names the key", async () => {
    const server = startProcess("src/server.ts", { SERVICE_TRACKER_TIMEOUT_MS: "abc", SERVICE_STORAGE_URL: "sqlite::memory:" }, folder.dir);
    try {
      const status = await server.waitForExit(20_000);

      expect(status).toEqual({ code: 2, signal: null });
      expect(server.lines).toEqual([]);
      expect(server.rawOutput()).toBe(
        'configuration error: service.tracker.timeout-ms (SERVICE_TRACKER_TIMEOUT_MS): "abc" is not a whole number\n',
      );
    } finally {
      server.kill();
    }
  });

  it("exits 2 with one line for a bad LOG_LEVEL, not a stack trace", async () => {
    const server = startProcess("src/server.ts", { LOG_LEVEL: "loud", SERVICE_STORAGE_URL: "sqlite::memory:" }, folder.dir);
    try {
      expect(await server.waitForExit(20_000)).toEqual({ code: 2, signal: null });
      expect(server.lines).toEqual([]);
      expect(server.rawOutput()).toBe('configuration error: log.level (LOG_LEVEL): "loud" is not one of fatal, error, warn, info, debug, trace, silent\n');
    } finally {
      server.kill();
    }
  });
});
