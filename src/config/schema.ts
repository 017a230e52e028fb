// The configuration's one definition. Each leaf of ConfigSchema carries, in its TypeBox options, the
// file key, the extra environment variables (aliases), the default, the range (for integers) and the
// parser (where the type does not imply it). Loading (config.ts), the unknown-key refusal and the
// README's table (checked by test/config-readme.test.ts) all read this schema and nothing else.
import { Type, TypeGuard, type Static, type TSchema } from "@sinclair/typebox";
import { flag, httpUrl, integer, nonEmpty, oneOf, origins, passwordHash, storageUrl, text, trustProxy, type Parser } from "./parsers.js";

/** The options every configuration leaf carries beside its type. */
export interface SettingOptions {
  /** The dotted key of the YAML file; its environment variable is derived by {@link environmentName}. */
  key: string;
  /** Further variables that set the key, read after the derived one. */
  aliases?: string[];
  default?: unknown;
  /** How the text is read, when the leaf's type does not say (integers, flags and choices do). */
  parse?: Parser;
}

/** pino's levels; `silent` logs nothing. */
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const setting = (options: SettingOptions) => options;

/** The service's configuration: one schema, one typed and frozen object; nothing else reads process.env. */
export const ConfigSchema = Type.Object({
  server: Type.Object({
    host: Type.String(setting({ key: "server.host", aliases: ["HOST"], default: "127.0.0.1", parse: text })),
    port: Type.Integer({ ...setting({ key: "server.port", aliases: ["PORT"], default: 8080 }), minimum: 0, maximum: 65535 }),
    /** Fastify's trustProxy: whether (or from which addresses) X-Forwarded-For and -Proto are believed. */
    trustProxy: Type.Union([Type.Boolean(), Type.Array(Type.String())], setting({ key: "server.trust-proxy", default: false, parse: trustProxy })),
    /** How long a stop may drain before the process exits anyway (src/stop-on-signals.ts). */
    shutdownTimeoutSeconds: Type.Integer({ ...setting({ key: "server.shutdown-timeout-seconds", default: 15 }), minimum: 1, maximum: 3600 }),
    /** How long a request's headers and body may take to arrive (408 past it); a waiting long poll's answer is not part of it. */
    requestTimeoutSeconds: Type.Integer({ ...setting({ key: "server.request-timeout-seconds", default: 30 }), minimum: 1, maximum: 3600 }),
  }),
  storage: Type.Object({
    url: Type.String(setting({ key: "service.storage.url", aliases: ["DATABASE_URL"], default: "sqlite:./data/service.db", parse: storageUrl })),
  }),
  tracker: Type.Object({
    apiUrl: Type.Optional(Type.String(setting({ key: "service.tracker.api-url", parse: httpUrl }))),
    webUrl: Type.Optional(Type.String(setting({ key: "service.tracker.web-url", parse: httpUrl }))),
    loginType: Type.String({ ...setting({ key: "service.tracker.login-type", default: "ldap", parse: nonEmpty }), minLength: 1 }),
    timeoutMs: Type.Integer({ ...setting({ key: "service.tracker.timeout-ms", default: 10_000 }), minimum: 1, maximum: 600_000 }),
  }),
  masterPassword: Type.Object({
    hash: Type.Optional(Type.String(setting({ key: "service.master-password.hash", parse: passwordHash }))),
    maxFailures: Type.Integer({ ...setting({ key: "service.master-password.max-failures", default: 5 }), minimum: 1, maximum: 1_000_000 }),
    lockSeconds: Type.Integer({ ...setting({ key: "service.master-password.lock-seconds", default: 60 }), minimum: 1, maximum: 31_536_000 }),
  }),
  feed: Type.Object({
    maxWaitSeconds: Type.Integer({ ...setting({ key: "service.feed.max-wait-seconds", default: 60 }), minimum: 0, maximum: 3600 }),
  }),
  history: Type.Object({
    pauseSeconds: Type.Integer({ ...setting({ key: "service.history.pause-seconds", default: 300 }), minimum: 1, maximum: 31_536_000 }),
    retentionSeconds: Type.Integer({ ...setting({ key: "service.history.retention-seconds", default: 86_400 }), minimum: 1, maximum: 3_153_600_000 }),
    compactionIntervalSeconds: Type.Integer({
      ...setting({ key: "service.history.compaction-interval-seconds", default: 3600 }),
      minimum: 1,
      maximum: 31_536_000,
    }),
  }),
  documents: Type.Object({
    maxContentBytes: Type.Integer({ ...setting({ key: "service.documents.max-content-bytes", default: 5_242_880 }), minimum: 1, maximum: 1_073_741_824 }),
  }),
  /** Who is here (src/service/presence.ts, docs/api.md "Presence"): held in memory per instance, never stored. */
  presence: Type.Object({
    ttlSeconds: Type.Integer({ ...setting({ key: "service.presence.ttl-seconds", default: 30 }), minimum: 1, maximum: 3600 }),
    maxClients: Type.Integer({ ...setting({ key: "service.presence.max-clients", default: 100 }), minimum: 1, maximum: 10_000 }),
  }),
  /** Per client address and instance (src/http/rate-limits.ts, src/http/wait-limit.ts); 0 turns a limit off. */
  rateLimit: Type.Object({
    createsPerMinute: Type.Integer({ ...setting({ key: "service.rate-limit.creates-per-minute", default: 60 }), minimum: 0, maximum: 1_000_000 }),
    writesPerSecond: Type.Integer({ ...setting({ key: "service.rate-limit.writes-per-second", default: 200 }), minimum: 0, maximum: 1_000_000 }),
    readsPerSecond: Type.Integer({ ...setting({ key: "service.rate-limit.reads-per-second", default: 200 }), minimum: 0, maximum: 1_000_000 }),
    waitsPerAddress: Type.Integer({ ...setting({ key: "service.rate-limit.waits-per-address", default: 200 }), minimum: 0, maximum: 1_000_000 }),
    trackerLoginsPerMinute: Type.Integer({ ...setting({ key: "service.rate-limit.tracker-logins-per-minute", default: 10 }), minimum: 0, maximum: 1_000_000 }),
    trackerReadsPerSecond: Type.Integer({ ...setting({ key: "service.rate-limit.tracker-reads-per-second", default: 20 }), minimum: 0, maximum: 1_000_000 }),
  }),
  cors: Type.Object({ origins: Type.Array(Type.String(), setting({ key: "service.cors.origins", default: [], parse: origins })) }),
  log: Type.Object({
    level: Type.Union(
      LOG_LEVELS.map((level) => Type.Literal(level)),
      setting({ key: "log.level", default: "info" }),
    ),
  }),
  metrics: Type.Object({ enabled: Type.Boolean(setting({ key: "service.metrics.enabled", default: true })) }),
});
export type Config = Static<typeof ConfigSchema>;

/** One leaf of the schema: where it sits in the Config object, and how it is set. */
export interface Setting extends SettingOptions {
  path: string[];
  parse: Parser;
}

/** `service.tracker.api-url` → `SERVICE_TRACKER_API_URL`. */
export function environmentName(key: string): string {
  return key.toUpperCase().replace(/[.-]/g, "_");
}

/** The variables that set a key, its own first. */
export function variablesOf(setting: SettingOptions): string[] {
  return [environmentName(setting.key), ...(setting.aliases ?? [])];
}

/** The parser a leaf's type implies, when its options name none. */
function impliedParser(schema: TSchema, key: string): Parser {
  if (TypeGuard.IsInteger(schema)) return integer(schema.minimum ?? 0, schema.maximum ?? Number.MAX_SAFE_INTEGER);
  if (TypeGuard.IsBoolean(schema)) return flag;
  if (TypeGuard.IsUnion(schema) && schema.anyOf.every((member) => TypeGuard.IsLiteralString(member))) {
    return oneOf(schema.anyOf.map((member) => String(member.const)));
  }
  throw new Error(`configuration key ${key} names no parser and its type implies none`);
}

function collect(schema: TSchema, path: string[], into: Setting[]): Setting[] {
  const options = schema as TSchema & Partial<SettingOptions>;
  if (typeof options.key === "string") {
    const { key, aliases, parse } = options;
    into.push({ key, aliases, default: schema.default, path, parse: parse ?? impliedParser(schema, key) });
  } else if (TypeGuard.IsObject(schema)) {
    for (const [name, child] of Object.entries(schema.properties)) collect(child, [...path, name], into);
  } else {
    throw new Error(`configuration schema: ${path.join(".")} is neither a section nor a key`);
  }
  return into;
}

/** Every key, in the schema's order (the README's table follows it). */
export const SETTINGS: readonly Setting[] = collect(ConfigSchema, [], []);
