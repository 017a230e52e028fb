import type { Logger } from "pino";

/** The signals that stop the service: SIGTERM from supervisors, SIGINT from Ctrl+C. */
const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/**
 * Drains on the first SIGTERM or SIGINT, and only on the first: the listeners stay for the whole
 * life of the process, so no later signal ever meets the default action (which ends the process
 * at once and cuts every open connection). Later ones are logged and change nothing; only the
 * drain's own limit forces the exit. Repeats are common and no sign of impatience: a signal to the
 * process group (systemd's KillMode=control-group, `timeout`, Ctrl+C in a terminal) reaches the
 * server from the kernel and again from `npm start`, which forwards what it gets to its child. A
 * third signal cannot tell an impatient operator from two such doubles, so it does not force
 * anything either; SIGKILL is the way to end the process at once (README, "Stopping").
 *
 * The limit (`server.shutdown-timeout-seconds`) ends a drain that takes too long with exit code 1.
 * A drain answers the waiting long polls at once and then waits only for the requests in flight,
 * which take milliseconds; the limit is for a client that sends its body very slowly.
 */
export function stopOnSignals(logger: Logger, drain: () => Promise<void>, limitMs: number): void {
  let draining = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      logger.info({ signal, limitSeconds: limitMs / 1000 }, "already shutting down; the drain goes on");
      return;
    }
    draining = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const timer = setTimeout(() => {
      logger.error(`shutdown took longer than ${limitMs / 1000} s; exiting`);
      process.exit(1);
    }, limitMs);
    // The process ends by itself once the drain has closed everything; the limit must not hold it.
    timer.unref();
    drain().then(
      () => logger.info("closed cleanly"),
      (error: unknown) => {
        logger.error({ err: error }, "error while closing");
        process.exitCode = 1;
      },
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
}
