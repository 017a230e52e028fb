import { readFileSync, existsSync } from "node:fs";
import { isIP } from "node:net";
import { parse as parseYaml } from "yaml";
import { Type, type Static } from "@sinclair/typebox";
import { parseStorageUrl, StorageUrlError } from "./storage/storage-url.js";
import { findUnknownKey } from "./config-keys.js";

/** The service's configuration: one schema, one typed and frozen object; nothing else reads process.env. */
export const ConfigSchema = Type.Object({
  server: Type.Object({
    host: Type.String(),
    port: Type.Integer(),
    /** Fastify's trustProxy: whether (or from which addresses) X-Forwarded-For and -Proto are believed. */
    trustProxy: Type.Union([Type.Boolean(), Type.Array(Type.String())]),
  }),
  storage: Type.Object({ url: Type.String() }),
  tracker: Type.Object({
    apiUrl: Type.Optional(Type.String()),
    webUrl: Type.Optional(Type.String()),
    loginType: Type.String(),
    timeoutMs: Type.Integer(),
  }),
  masterPassword: Type.Object({
    hash: Type.Optional(Type.String()),
    maxFailures: Type.Integer(),
    lockSeconds: Type.Integer(),
  }),
  feed: Type.Object({ maxWaitSeconds: Type.Integer() }),
  history: Type.Object({
    pauseSeconds: Type.Integer(),
    retentionSeconds: Type.Integer(),
    compactionIntervalSeconds: Type.Integer(),
  }),
  documents: Type.Object({ maxContentBytes: Type.Integer() }),
  cors: Type.Object({ origins: Type.Array(Type.String()) }),
  log: Type.Object({ level: Type.String() }),
  metrics: Type.Object({ enabled: Type.Boolean() }),
});
export type Config = Static<typeof ConfigSchema>;

/** A configuration value that cannot be used; the message names the key. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

type Parser = (raw: string, key: string) => unknown;

interface KeySpec {
  key: string;
  aliases?: string[];
  default?: unknown;
  parse: Parser;
  assign: (config: Config, value: never) => void;
}

const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const ARGON2ID = /^\$argon2id\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

const text: Parser = (raw) => raw;

function integer(min: number, max: number): Parser {
  return (raw, key) => {
    if (!/^\s*\d+\s*$/.test(raw)) throw new ConfigError(`${key}: "${raw}" is not a whole number`);
    const value = Number(raw);
    if (value < min || value > max) throw new ConfigError(`${key}: ${value} is outside ${min}..${max}`);
    return value;
  };
}

function httpUrl(raw: string, key: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${key}: "${raw}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${key}: "${raw}" is not an http(s) URL`);
  if (url.search || url.hash) throw new ConfigError(`${key}: "${raw}" must not carry a query or fragment`);
  return raw.replace(/\/+$/, "");
}

function storageUrl(raw: string, key: string): string {
  try {
    parseStorageUrl(raw);
  } catch (error) {
    if (error instanceof StorageUrlError) throw new ConfigError(`${key}: ${error.message}`);
    throw error;
  }
  return raw;
}

function passwordHash(raw: string, key: string): string {
  const bare = raw.startsWith("{bcrypt}") ? raw.slice("{bcrypt}".length) : raw;
  if (BCRYPT.test(bare) || ARGON2ID.test(raw)) return raw;
  throw new ConfigError(`${key}: not a bcrypt ($2a$/$2b$/$2y$, optionally {bcrypt}-prefixed) or $argon2id$ hash`);
}

function origins(raw: string, key: string): string[] {
  return raw
    .split(",")
    .map((origin) => origin.trim())
    .filter((origin) => origin !== "")
    .map((origin) => {
      if (origin === "*") return origin;
      try {
        return new URL(origin).origin;
      } catch {
        throw new ConfigError(`${key}: "${origin}" is not an origin`);
      }
    });
}

function flag(raw: string, key: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value === "true") return true;
  if (value === "false") return false;
  throw new ConfigError(`${key}: "${raw}" is neither true nor false`);
}

/** `true`, `false`, or the comma-separated addresses or CIDR ranges of the proxies to believe. */
function trustProxy(raw: string, key: string): boolean | string[] {
  const value = raw.trim().toLowerCase();
  if (value === "true" || value === "false") return value === "true";
  const proxies = raw.split(",").map((part) => part.trim()).filter((part) => part !== "");
  for (const proxy of proxies) {
    const [address, bits, ...rest] = proxy.split("/");
    const family = isIP(address ?? "");
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`${key}: "${proxy}" is not true, false, an IP address or a CIDR range`);
    }
  }
  if (proxies.length === 0) throw new ConfigError(`${key}: must not be empty`);
  return proxies;
}

const KEYS: KeySpec[] = [
  { key: "server.host", aliases: ["HOST"], default: "127.0.0.1", parse: text, assign: (c, v: string) => (c.server.host = v) },
  { key: "server.port", aliases: ["PORT"], default: 8080, parse: integer(0, 65535), assign: (c, v: number) => (c.server.port = v) },
  {
    key: "service.storage.url",
    aliases: ["DATABASE_URL"],
    default: "sqlite:./data/service.db",
    parse: storageUrl,
    assign: (c, v: string) => (c.storage.url = v),
  },
  { key: "service.tracker.api-url", parse: httpUrl, assign: (c, v: string) => (c.tracker.apiUrl = v) },
  { key: "service.tracker.web-url", parse: httpUrl, assign: (c, v: string) => (c.tracker.webUrl = v) },
  { key: "service.tracker.login-type", default: "ldap", parse: nonEmpty, assign: (c, v: string) => (c.tracker.loginType = v) },
  { key: "service.tracker.timeout-ms", default: 10_000, parse: integer(1, 600_000), assign: (c, v: number) => (c.tracker.timeoutMs = v) },
  { key: "service.master-password.hash", parse: passwordHash, assign: (c, v: string) => (c.masterPassword.hash = v) },
  {
    key: "service.master-password.max-failures",
    default: 5,
    parse: integer(1, 1_000_000),
    assign: (c, v: number) => (c.masterPassword.maxFailures = v),
  },
  {
    key: "service.master-password.lock-seconds",
    default: 60,
    parse: integer(1, 31_536_000),
    assign: (c, v: number) => (c.masterPassword.lockSeconds = v),
  },
  { key: "service.feed.max-wait-seconds", default: 60, parse: integer(0, 3600), assign: (c, v: number) => (c.feed.maxWaitSeconds = v) },
  {
    key: "service.history.pause-seconds",
    default: 300,
    parse: integer(1, 31_536_000),
    assign: (c, v: number) => (c.history.pauseSeconds = v),
  },
  {
    key: "service.history.retention-seconds",
    default: 86_400,
    parse: integer(1, 3_153_600_000),
    assign: (c, v: number) => (c.history.retentionSeconds = v),
  },
  {
    key: "service.history.compaction-interval-seconds",
    default: 3600,
    parse: integer(1, 31_536_000),
    assign: (c, v: number) => (c.history.compactionIntervalSeconds = v),
  },
  {
    key: "service.documents.max-content-bytes",
    default: 5_242_880,
    parse: integer(1, 1_073_741_824),
    assign: (c, v: number) => (c.documents.maxContentBytes = v),
  },
  { key: "service.cors.origins", default: [], parse: origins, assign: (c, v: string[]) => (c.cors.origins = v) },
  { key: "log.level", default: "info", parse: logLevel, assign: (c, v: string) => (c.log.level = v) },
  { key: "server.trust-proxy", default: false, parse: trustProxy, assign: (c, v: boolean | string[]) => (c.server.trustProxy = v) },
  { key: "service.metrics.enabled", default: true, parse: flag, assign: (c, v: boolean) => (c.metrics.enabled = v) },
];

/** pino's levels; `silent` logs nothing. */
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function logLevel(raw: string, key: string): string {
  const level = raw.trim().toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new ConfigError(`${key}: "${raw}" is not one of ${LOG_LEVELS.join(", ")}`);
  return level;
}

function nonEmpty(raw: string, key: string): string {
  if (raw.trim() === "") throw new ConfigError(`${key}: must not be empty`);
  return raw.trim();
}

function scalar(value: unknown, key: string): string {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  throw new ConfigError(`${key}: expects a value, found ${typeof value === "object" ? "a mapping" : typeof value}`);
}

/** `service.tracker.api-url` → `SERVICE_TRACKER_API_URL`. */
export function environmentName(key: string): string {
  return key.toUpperCase().replace(/[.-]/g, "_");
}

function lookup(tree: unknown, key: string): unknown {
  let node: unknown = tree;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Reads the YAML file; `origin` is how the file was named ("SERVICE_CONFIG_FILE: " when through it). */
function readYaml(path: string, origin: string): unknown {
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`${origin}config file ${path}: ${(error as Error).message}`);
  }
  try {
    return parseYaml(source) ?? {};
  } catch (error) {
    throw new ConfigError(`${origin}config file ${path}: not valid YAML (${(error as Error).message.split("\n")[0]})`);
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The defaults, for tests that override a few keys. */
export function defaultConfig(): Config {
  return loadConfig({ env: {}, file: null });
}

/**
 * Reads the configuration: the YAML file (`service.yaml` in the working directory, or the path in
 * `SERVICE_CONFIG_FILE`), then the environment, which wins. Throws {@link ConfigError} naming the
 * key of the first bad value.
 */
export function loadConfig(options: { env?: NodeJS.ProcessEnv; file?: string | null; cwd?: string } = {}): Config {
  const env = options.env ?? process.env;
  const filePath = options.file === undefined ? (env.SERVICE_CONFIG_FILE ?? `${options.cwd ?? process.cwd()}/service.yaml`) : options.file;
  const explicitFile = options.file !== undefined || env.SERVICE_CONFIG_FILE !== undefined;
  const origin = options.file === undefined && env.SERVICE_CONFIG_FILE !== undefined ? "SERVICE_CONFIG_FILE: " : "";
  const tree = filePath !== null && (explicitFile || existsSync(filePath)) ? readYaml(filePath, origin) : {};
  const unknown = filePath === null ? undefined : findUnknownKey(tree, KEYS.map((spec) => spec.key));
  if (unknown !== undefined) throw new ConfigError(`${origin}config file ${filePath}: ${unknown}`);

  const config: Config = {
    server: { host: "", port: 0, trustProxy: false },
    storage: { url: "" },
    tracker: { loginType: "", timeoutMs: 0 },
    masterPassword: { maxFailures: 0, lockSeconds: 0 },
    feed: { maxWaitSeconds: 0 },
    history: { pauseSeconds: 0, retentionSeconds: 0, compactionIntervalSeconds: 0 },
    documents: { maxContentBytes: 0 },
    cors: { origins: [] },
    log: { level: "" },
    metrics: { enabled: true },
  };
  for (const spec of KEYS) {
    const names = [environmentName(spec.key), ...(spec.aliases ?? [])];
    // The message names the variable that was actually set, the alias included.
    const variable = names.find((name) => env[name] !== undefined && env[name] !== "");
    const fromFile = lookup(tree, spec.key);
    let value: unknown = spec.default;
    if (variable !== undefined) value = spec.parse(env[variable] ?? "", `${spec.key} (${variable})`);
    else if (fromFile !== undefined && fromFile !== null) {
      const raw = Array.isArray(fromFile) ? fromFile.map(String).join(",") : scalar(fromFile, spec.key);
      value = spec.parse(raw, spec.key);
    }
    if (value !== undefined) spec.assign(config, value as never);
  }
  return deepFreeze(config);
}
