import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, defaultConfig, environmentName, loadConfig, type Config } from "../src/config/config.js";
import { startProcess } from "./support/server-process.js";

const BCRYPT_HASH = "$2b$04$D/CGBg6htt1f7tl970OFtulvBJl1h1I6qkkO7nKrmZGv1s6LofJii";
const ARGON2ID_HASH = "$argon2id$v=19$m=19456,t=2,p=1$ht866IOHjJSogov9AYLrhg$QGAMTdbShuPVWpTC2fOIEVvGGK6keU2fkMGQIRnkPGc";

const DEFAULTS: Config = {
  server: { host: "127.0.0.1", port: 8080, trustProxy: false, shutdownTimeoutSeconds: 15 },
  storage: { url: "sqlite:./data/service.db" },
  tracker: { loginType: "ldap", timeoutMs: 10_000 },
  masterPassword: { maxFailures: 5, lockSeconds: 60 },
  feed: { maxWaitSeconds: 60 },
  history: { pauseSeconds: 300, retentionSeconds: 86_400, compactionIntervalSeconds: 3600 },
  documents: { maxContentBytes: 5_242_880 },
  rateLimit: { createsPerMinute: 60, writesPerSecond: 1000 },
  cors: { origins: [] },
  log: { level: "info" },
  metrics: { enabled: true },
};

const FULL_YAML = `
server:
  host: 0.0.0.0
  port: 9000
  trust-proxy: 10.0.0.0/8, 127.0.0.1
  shutdown-timeout-seconds: 8
service:
  storage:
    url: sqlite:/var/lib/folio/service.db
  tracker:
    api-url: https://tracker.example/api/v1
    web-url: https://tracker.example/
    login-type: normal
    timeout-ms: 2500
  master-password:
    hash: "${BCRYPT_HASH}"
    max-failures: 3
    lock-seconds: 120
  feed:
    max-wait-seconds: 30
  history:
    pause-seconds: 60
    retention-seconds: 3600
    compaction-interval-seconds: 600
  documents:
    max-content-bytes: 1024
  rate-limit:
    creates-per-minute: 0
    writes-per-second: 20
  metrics:
    enabled: false
  cors:
    origins:
      - https://editor.example
      - http://localhost:5173/
log:
  level: warn
`;

const FROM_FULL_YAML: Config = {
  server: { host: "0.0.0.0", port: 9000, trustProxy: ["10.0.0.0/8", "127.0.0.1"], shutdownTimeoutSeconds: 8 },
  storage: { url: "sqlite:/var/lib/folio/service.db" },
  tracker: { apiUrl: "https://tracker.example/api/v1", webUrl: "https://tracker.example", loginType: "normal", timeoutMs: 2500 },
  masterPassword: { hash: BCRYPT_HASH, maxFailures: 3, lockSeconds: 120 },
  feed: { maxWaitSeconds: 30 },
  history: { pauseSeconds: 60, retentionSeconds: 3600, compactionIntervalSeconds: 600 },
  documents: { maxContentBytes: 1024 },
  rateLimit: { createsPerMinute: 0, writesPerSecond: 20 },
  cors: { origins: ["https://editor.example", "http://localhost:5173"] },
  log: { level: "warn" },
  metrics: { enabled: false },
};

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "folio-config-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function yamlFile(source: string, name = "service.yaml"): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

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

describe("loadConfig: defaults", () => {
  it("gives the documented defaults without file and environment", () => {
    expect(loadConfig({ env: {}, file: null })).toEqual(DEFAULTS);
  });

  it("gives the defaults when the working directory has no service.yaml", () => {
    expect(loadConfig({ env: {}, cwd: dir })).toEqual(DEFAULTS);
  });

  it("returns a frozen object, down to the nested sections", () => {
    const config = defaultConfig();

    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.server)).toBe(true);
    expect(Object.isFrozen(config.cors.origins)).toBe(true);
  });

  it("derives the variable name from the key", () => {
    expect(environmentName("service.tracker.api-url")).toBe("SERVICE_TRACKER_API_URL");
    expect(environmentName("service.history.compaction-interval-seconds")).toBe("SERVICE_HISTORY_COMPACTION_INTERVAL_SECONDS");
  });
});

describe("loadConfig: YAML file and environment", () => {
  it("reads every key from a YAML file", () => {
    expect(loadConfig({ env: {}, file: yamlFile(FULL_YAML) })).toEqual(FROM_FULL_YAML);
  });

  it("reads service.yaml from the working directory", () => {
    yamlFile(FULL_YAML);

    expect(loadConfig({ env: {}, cwd: dir })).toEqual(FROM_FULL_YAML);
  });

  it("reads the file named by SERVICE_CONFIG_FILE instead of service.yaml", () => {
    yamlFile("server:\n  port: 1111\n");
    const other = yamlFile("server:\n  port: 2222\n", "other.yaml");

    expect(loadConfig({ env: { SERVICE_CONFIG_FILE: other }, cwd: dir }).server.port).toBe(2222);
  });

  it("lets the environment win over the file, key by key", () => {
    const config = loadConfig({
      env: {
        SERVER_PORT: "9100",
        SERVICE_TRACKER_TIMEOUT_MS: "700",
        SERVICE_MASTER_PASSWORD_HASH: ARGON2ID_HASH,
        SERVICE_CORS_ORIGINS: "https://a.example, https://b.example",
      },
      file: yamlFile(FULL_YAML),
    });

    expect(config).toEqual({
      ...FROM_FULL_YAML,
      server: { host: "0.0.0.0", port: 9100, trustProxy: ["10.0.0.0/8", "127.0.0.1"], shutdownTimeoutSeconds: 8 },
      tracker: { ...FROM_FULL_YAML.tracker, timeoutMs: 700 },
      masterPassword: { ...FROM_FULL_YAML.masterPassword, hash: ARGON2ID_HASH },
      cors: { origins: ["https://a.example", "https://b.example"] },
    });
  });

  it("ignores an empty variable, so the file or the default holds", () => {
    const config = loadConfig({ env: { SERVER_PORT: "", SERVER_HOST: "" }, file: yamlFile("server:\n  port: 9000\n") });

    expect(config.server).toEqual({ host: "127.0.0.1", port: 9000, trustProxy: false, shutdownTimeoutSeconds: 15 });
  });

  it("accepts the aliases HOST, PORT and DATABASE_URL", () => {
    const config = loadConfig({ env: { HOST: "::1", PORT: "3000", DATABASE_URL: "postgres://folio@db.example:5432/folio" }, file: null });

    expect({ server: config.server, storage: config.storage }).toEqual({
      server: { host: "::1", port: 3000, trustProxy: false, shutdownTimeoutSeconds: 15 },
      storage: { url: "postgres://folio@db.example:5432/folio" },
    });
  });

  it("prefers the key's own variable over its alias", () => {
    const config = loadConfig({
      env: { SERVER_HOST: "10.0.0.1", HOST: "10.0.0.2", SERVER_PORT: "4000", PORT: "5000", SERVICE_STORAGE_URL: "sqlite::memory:", DATABASE_URL: "sqlite:/x.db" },
      file: null,
    });

    expect({ host: config.server.host, port: config.server.port, url: config.storage.url }).toEqual({ host: "10.0.0.1", port: 4000, url: "sqlite::memory:" });
  });

  it("lets an alias win over the file", () => {
    expect(loadConfig({ env: { PORT: "3000" }, file: yamlFile("server:\n  port: 9000\n") }).server.port).toBe(3000);
  });

  it("strips the trailing slash of the tracker addresses", () => {
    const config = loadConfig({ env: { SERVICE_TRACKER_API_URL: "https://tracker.example/api/v1/", SERVICE_TRACKER_WEB_URL: "https://tracker.example/" }, file: null });

    expect(config.tracker).toEqual({ apiUrl: "https://tracker.example/api/v1", webUrl: "https://tracker.example", loginType: "ldap", timeoutMs: 10_000 });
  });

  it("accepts every documented hash form", () => {
    for (const hash of [BCRYPT_HASH, BCRYPT_HASH.replace("$2b$", "$2a$"), BCRYPT_HASH.replace("$2b$", "$2y$"), `{bcrypt}${BCRYPT_HASH}`, ARGON2ID_HASH]) {
      expect(loadConfig({ env: { SERVICE_MASTER_PASSWORD_HASH: hash }, file: null }).masterPassword.hash).toBe(hash);
    }
  });

  it("accepts the storage URLs sqlite:<path>, sqlite::memory: and postgres://", () => {
    for (const url of ["sqlite:./data/x.db", "sqlite::memory:", "postgres://u:p@localhost:5432/db", "postgresql://localhost/db"]) {
      expect(loadConfig({ env: { SERVICE_STORAGE_URL: url }, file: null }).storage.url).toBe(url);
    }
  });
});

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
    expect(fromEnv({ SERVICE_RATE_LIMIT_CREATES_PER_MINUTE: "0", SERVICE_RATE_LIMIT_WRITES_PER_SECOND: "25" })().rateLimit).toEqual({
      createsPerMinute: 0,
      writesPerSecond: 25,
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
    const path = join(dir, "missing.yaml");

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
    const server = startProcess("src/server.ts", { SERVICE_TRACKER_TIMEOUT_MS: "abc", SERVICE_STORAGE_URL: "sqlite::memory:" }, dir);
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
    const server = startProcess("src/server.ts", { LOG_LEVEL: "loud", SERVICE_STORAGE_URL: "sqlite::memory:" }, dir);
    try {
      expect(await server.waitForExit(20_000)).toEqual({ code: 2, signal: null });
      expect(server.lines).toEqual([]);
      expect(server.rawOutput()).toBe('configuration error: log.level (LOG_LEVEL): "loud" is not one of fatal, error, warn, info, debug, trace, silent\n');
    } finally {
      server.kill();
    }
  });
});
