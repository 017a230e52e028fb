import { readFileSync, existsSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { Value } from "@sinclair/typebox/value";
import { ConfigError } from "./parsers.js";
import { expandDottedKeys, findUnknownKey } from "./keys.js";
import { ConfigSchema, SETTINGS, variablesOf, type Config } from "./schema.js";

// The schema (schema.ts) defines every key; this file only reads the file and the environment.
export { ConfigError } from "./parsers.js";
export { ConfigSchema, environmentName, type Config } from "./schema.js";

function scalar(value: unknown, key: string): string {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  throw new ConfigError(`${key}: expects a value, found ${typeof value === "object" ? "a mapping" : typeof value}`);
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

/** Sets `value` at `path`, creating the sections on the way. */
function assign(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[path[path.length - 1] ?? ""] = value;
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
  const read = filePath !== null && (explicitFile || existsSync(filePath)) ? expandDottedKeys(readYaml(filePath, origin)) : { tree: {} };
  if ("problem" in read) throw new ConfigError(`${origin}config file ${filePath}: ${read.problem}`);
  const tree = read.tree;
  const unknown = filePath === null ? undefined : findUnknownKey(tree, SETTINGS.map((setting) => setting.key));
  if (unknown !== undefined) throw new ConfigError(`${origin}config file ${filePath}: ${unknown}`);

  const config: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    // The message names the variable that was actually set, the alias included.
    const variable = variablesOf(setting).find((name) => env[name] !== undefined && env[name] !== "");
    const fromFile = lookup(tree, setting.key);
    let value: unknown = structuredClone(setting.default);
    if (variable !== undefined) value = setting.parse(env[variable] ?? "", `${setting.key} (${variable})`);
    else if (fromFile !== undefined && fromFile !== null) {
      const raw = Array.isArray(fromFile) ? fromFile.map(String).join(",") : scalar(fromFile, setting.key);
      value = setting.parse(raw, setting.key);
    }
    if (value !== undefined) assign(config, setting.path, value);
  }
  return deepFreeze(checked(config));
}

/** The parsers promise the schema's types; this holds them to it (a mismatch is a defect here, not bad input). */
function checked(config: Record<string, unknown>): Config {
  if (!Value.Check(ConfigSchema, config)) {
    const first = [...Value.Errors(ConfigSchema, config)][0];
    throw new Error(`configuration does not match its schema at ${first?.path ?? "?"}: ${first?.message ?? ""}`);
  }
  return config;
}
