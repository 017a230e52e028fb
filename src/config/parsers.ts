// How one configuration value is read from its text (a variable, or a scalar in the file). The
// schema in schema.ts names, per key, the parser that is not implied by the key's type.
import { isIP } from "node:net";
import { parseStorageUrl, StorageUrlError } from "../storage/storage-url.js";

/** A configuration value that cannot be used; the message names the key. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Reads `raw`; `label` names the key (and the variable, when one carried the value) for the message. */
export type Parser = (raw: string, label: string) => unknown;

const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const ARGON2ID = /^\$argon2id\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

export const text: Parser = (raw) => raw;

export function integer(min: number, max: number): Parser {
  return (raw, key) => {
    if (!/^\s*\d+\s*$/.test(raw)) throw new ConfigError(`${key}: "${raw}" is not a whole number`);
    const value = Number(raw);
    if (value < min || value > max) throw new ConfigError(`${key}: ${value} is outside ${min}..${max}`);
    return value;
  };
}

/** One of `choices`, case-insensitive. */
export function oneOf(choices: readonly string[]): Parser {
  return (raw, key) => {
    const value = raw.trim().toLowerCase();
    if (!choices.includes(value)) throw new ConfigError(`${key}: "${raw}" is not one of ${choices.join(", ")}`);
    return value;
  };
}

export function nonEmpty(raw: string, key: string): string {
  if (raw.trim() === "") throw new ConfigError(`${key}: must not be empty`);
  return raw.trim();
}

export function flag(raw: string, key: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value === "true") return true;
  if (value === "false") return false;
  throw new ConfigError(`${key}: "${raw}" is neither true nor false`);
}

export function httpUrl(raw: string, key: string): string {
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

export function storageUrl(raw: string, key: string): string {
  try {
    parseStorageUrl(raw);
  } catch (error) {
    if (error instanceof StorageUrlError) throw new ConfigError(`${key}: ${error.message}`);
    throw error;
  }
  return raw;
}

export function passwordHash(raw: string, key: string): string {
  const bare = raw.startsWith("{bcrypt}") ? raw.slice("{bcrypt}".length) : raw;
  if (BCRYPT.test(bare) || ARGON2ID.test(raw)) return raw;
  throw new ConfigError(`${key}: not a bcrypt ($2a$/$2b$/$2y$, optionally {bcrypt}-prefixed) or $argon2id$ hash`);
}

export function origins(raw: string, key: string): string[] {
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

/** `true`, `false`, or the comma-separated addresses or CIDR ranges of the proxies to believe. */
export function trustProxy(raw: string, key: string): boolean | string[] {
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
