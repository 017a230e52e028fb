// The container image's HEALTHCHECK (docs/container.md): asks this instance's GET /health/ready at the
// address the server listens on, read from the same configuration (environment and service.yaml),
// so that a changed SERVER_PORT moves the check with it. Exit 0 when ready, 1 otherwise, which is
// what Docker and Podman expect; the one line printed lands in `inspect`'s health log.
import { ConfigError, loadConfig } from "../config/config.js";

/** Below the image's `--timeout`, so that a hung answer is reported here rather than killed. */
const TIMEOUT_MS = 8_000;

function fail(message: string): never {
  process.stdout.write(`${message}\n`);
  process.exit(1);
}

let host: string;
let port: number;
try {
  ({ host, port } = loadConfig().server);
} catch (error) {
  if (error instanceof ConfigError) fail(`configuration error: ${error.message}`);
  throw error;
}
if (port === 0) fail("server.port is 0 (a free port picked at start): there is no fixed address to check");

// A wildcard address is reached on loopback; an IPv6 literal needs brackets in a URL.
const target = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
const url = `http://${target}:${port}/health/ready`;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = (await response.text()).slice(0, 500);
  process.stdout.write(`${url}: ${response.status} ${body}\n`);
  process.exit(response.status === 200 ? 0 : 1);
} catch (error) {
  fail(`${url}: ${error instanceof Error ? error.message : String(error)}`);
}
