import pino from "pino";
import { ConfigError, loadConfig, type Config } from "./config/config.js";
import { compose } from "./composition.js";
import { buildApp, REDACTED_PATHS } from "./http/app.js";
import { systemClock } from "./service/clock.js";
import { readIdentity } from "./identity.js";
import { openStore } from "./storage/open-store.js";
import { StorageInUseError, StorageUnusableError } from "./storage/store.js";
import { stopOnSignals } from "./stop-on-signals.js";
import { redactStorageUrl } from "./storage/storage-url.js";

/** Stops the start with one line on stderr (no stack trace): the operator's mistake, not a fault. */
function refuse(message: string, exitCode: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
}

/**
 * Connections the kernel queues before the service accepts them. Editors connect in crowds (all
 * of them after a restart, a deploy or a load balancer's failover), and past Node's default of 511
 * the kernel drops their SYNs: each dropped client waits for its retransmission, 1 s and then
 * longer. The kernel caps the figure at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 4096;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) refuse(`configuration error: ${error.message}`, 2);
    throw error;
  }
  const logger = pino({ level: config.log.level, redact: REDACTED_PATHS });

  let store;
  try {
    store = await openStore(config.storage.url, {
      onError: (error) => logger.warn({ err: error }, "PostgreSQL connection trouble; the store recovers by itself"),
    });
  } catch (error) {
    if (error instanceof StorageInUseError) refuse(`storage in use: ${error.message}`, 3);
    if (error instanceof StorageUnusableError) refuse(`storage unusable: ${error.message}`, 3);
    throw error;
  }
  const composition = compose({ config, store, clock: systemClock, log: logger });
  const app = await buildApp({ composition, identity: readIdentity(), logger });

  // Fastify writes a "Server listening at" line of its own (one per interface on 0.0.0.0) and has
  // no option to leave it out; the one line below says more, so Fastify's logger keeps quiet while it listens.
  await app.ready();
  const level = app.log.level;
  app.log.level = "silent";
  let address: string;
  try {
    address = await app.listen({ host: config.server.host, port: config.server.port, backlog: LISTEN_BACKLOG });
  } finally {
    app.log.level = level;
  }
  // From here on a stop drains; before, the default action of a signal ends a process that has
  // accepted nothing yet. Nothing runs between the listener opening and this line.
  stopOnSignals(
    logger,
    async () => {
      await app.close();
      await store.close();
    },
    config.server.shutdownTimeoutSeconds * 1000,
  );
  logger.info({ address, storage: redactStorageUrl(config.storage.url), tracker: config.tracker.apiUrl !== undefined }, `listening on ${address}`);
}

main().catch((error: unknown) => {
  pino({ redact: REDACTED_PATHS }).fatal({ err: error }, "failed to start");
  process.exit(1);
});
