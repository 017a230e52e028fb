import { readFileSync } from "node:fs";

/** The service's name and version from package.json, and `builtAt` when the build recorded it. */
export function readIdentity(): { name: string; version: string; builtAt?: string } {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { name: string; version: string };
  const identity: { name: string; version: string; builtAt?: string } = { name: pkg.name, version: pkg.version };
  try {
    const info = JSON.parse(readFileSync(new URL("./build-info.json", import.meta.url), "utf8")) as { builtAt?: unknown };
    if (typeof info.builtAt === "string" && !Number.isNaN(Date.parse(info.builtAt))) identity.builtAt = info.builtAt;
  } catch {
    // Started from source (tsx, tests): no build information.
  }
  return identity;
}
