import { describe, expect, it } from "vitest";
import { defaultConfig, environmentName, loadConfig, type Config } from "../src/config/config.js";
import { ARGON2ID_HASH, BCRYPT_HASH, DEFAULTS, configFolderPerTest } from "./support/config-values.js";

/* Where the configuration comes from: the defaults, the YAML file, the environment and its aliases. Bad values: config-errors.test.ts. */

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
  presence:
    ttl-seconds: 10
    max-clients: 5
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
  server: { host: "0.0.0.0", port: 9000, trustProxy: ["10.0.0.0/8", "127.0.0.1"], shutdownTimeoutSeconds: 8, requestTimeoutSeconds: 30 },
  storage: { url: "sqlite:/var/lib/folio/service.db" },
  tracker: { apiUrl: "https://tracker.example/api/v1", webUrl: "https://tracker.example", loginType: "normal", timeoutMs: 2500 },
  masterPassword: { hash: BCRYPT_HASH, maxFailures: 3, lockSeconds: 120 },
  feed: { maxWaitSeconds: 30 },
  history: { pauseSeconds: 60, retentionSeconds: 3600, compactionIntervalSeconds: 600 },
  documents: { maxContentBytes: 1024 },
  presence: { ttlSeconds: 10, maxClients: 5 },
  rateLimit: { createsPerMinute: 0, writesPerSecond: 20, readsPerSecond: 200, waitsPerAddress: 200, trackerLoginsPerMinute: 10, trackerReadsPerSecond: 20 },
  cors: { origins: ["https://editor.example", "http://localhost:5173"] },
  log: { level: "warn" },
  metrics: { enabled: false },
};

const folder = configFolderPerTest();
const yamlFile = folder.yamlFile;

describe("loadConfig: defaults", () => {
  it("gives the documented defaults without file and environment", () => {
    expect(loadConfig({ env: {}, file: null })).toEqual(DEFAULTS);
  });

  it("gives the defaults when the working directory has no service.yaml", () => {
    expect(loadConfig({ env: {}, cwd: folder.dir })).toEqual(DEFAULTS);
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

    expect(loadConfig({ env: {}, cwd: folder.dir })).toEqual(FROM_FULL_YAML);
  });

  it("reads the file named by SERVICE_CONFIG_FILE instead of service.yaml", () => {
    yamlFile("server:\n  port: 1111\n");
    const other = yamlFile("server:\n  port: 2222\n", "other.yaml");

    expect(loadConfig({ env: { SERVICE_CONFIG_FILE: other }, cwd: folder.dir }).server.port).toBe(2222);
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
      server: { host: "0.0.0.0", port: 9100, trustProxy: ["10.0.0.0/8", "127.0.0.1"], shutdownTimeoutSeconds: 8, requestTimeoutSeconds: 30 },
      tracker: { ...FROM_FULL_YAML.tracker, timeoutMs: 700 },
      masterPassword: { ...FROM_FULL_YAML.masterPassword, hash: ARGON2ID_HASH },
      cors: { origins: ["https://a.example", "https://b.example"] },
    });
  });

  it("ignores an empty variable, so the file or the default holds", () => {
    const config = loadConfig({ env: { SERVER_PORT: "", SERVER_HOST: "" }, file: yamlFile("server:\n  port: 9000\n") });

    expect(config.server).toEqual({ host: "127.0.0.1", port: 9000, trustProxy: false, shutdownTimeoutSeconds: 15, requestTimeoutSeconds: 30 });
  });

  it("accepts the aliases HOST, PORT and DATABASE_URL", () => {
    const config = loadConfig({ env: { HOST: "::1", PORT: "3000", DATABASE_URL: "postgres://folio@db.example:5432/folio" }, file: null });

    expect({ server: config.server, storage: config.storage }).toEqual({
      server: { host: "::1", port: 3000, trustProxy: false, shutdownTimeoutSeconds: 15, requestTimeoutSeconds: 30 },
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
