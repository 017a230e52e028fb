import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// Podman for the container test (docs/container.md): what it needs from the machine, and the calls.

/** The base the Containerfile's NODE_IMAGE is set to: the local stand-in that scripts/container/local-node-base.sh builds. */
export const BASE_IMAGE = process.env.FOLIO_CONTAINER_BASE ?? "localhost/node:24-bookworm-slim";

/** Written by scripts/container/local-node-base.sh: runc, and ulimits no higher than this host's. */
const LOCAL_CONF = "/var/tmp/local-node-base/containers.conf";
const conf = process.env.CONTAINERS_CONF ?? (existsSync(LOCAL_CONF) ? LOCAL_CONF : undefined);

/** The environment of every podman call (PATH, and the machine's containers.conf when there is one). */
export const PODMAN_ENV: Record<string, string> = conf === undefined ? {} : { CONTAINERS_CONF: conf };

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

const env = () => ({ PATH: process.env.PATH ?? "", ...PODMAN_ENV });

/** A short podman call (inspect, exec, rm); never throws. */
export function podmanSync(args: string[], timeoutMs = 60_000): Result & { error?: NodeJS.ErrnoException } {
  const result = spawnSync("podman", args, { env: env(), encoding: "utf8", timeout: timeoutMs });
  return { code: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "", ...(result.error ? { error: result.error } : {}) };
}

/** A long podman call (build, stop) that must not hold the event loop; killed after `timeoutMs`. */
export function podman(args: string[], timeoutMs: number, cwd?: string): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn("podman", args, { env: env(), cwd, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs, killSignal: "SIGKILL" });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => resolve({ code: null, stdout, stderr: `${stderr}${error.message}` }));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Why this machine cannot build and run the image, or `undefined`. `.ci/run` prepares a machine of
 * this kind (podman, runc, the local base image) and sets FOLIO_CONTAINER_SKIP, with the reason,
 * only where it could not.
 */
export function containersUnavailable(): string | undefined {
  const given = process.env.FOLIO_CONTAINER_SKIP;
  if (given !== undefined && given !== "") return given;
  const version = podmanSync(["--version"]);
  if (version.error?.code === "ENOENT") return "podman is not installed";
  const info = podmanSync(["info", "--format", "{{.Host.OCIRuntime.Name}}"]);
  if (info.code !== 0) return `podman cannot run here: ${(info.stderr.trim().split("\n").pop() ?? "").slice(0, 300)}`;
  if (podmanSync(["image", "exists", BASE_IMAGE]).code !== 0) {
    return `the base image ${BASE_IMAGE} is missing (scripts/container/local-node-base.sh builds it; FOLIO_CONTAINER_BASE names another)`;
  }
  return undefined;
}
