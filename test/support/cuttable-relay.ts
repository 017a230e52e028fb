import { createServer, connect, type Server, type Socket } from "node:net";
import { PostgresStore } from "../../src/storage/postgres/postgres-store.js";
import { POSTGRES_TEST_URL, dropSchema, uniqueSchemaName } from "./postgres.js";

/** A TCP relay in front of PostgreSQL that can be cut: live connections dropped, new ones refused. */
export async function cuttableRelay(target: URL): Promise<{ port: number; cut: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the relay has no port");
  let cut = false;
  const cutNow = async () => {
    if (cut) return;
    cut = true;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { port: address.port, cut: cutNow };
}

/**
 * A PostgreSQL store on a schema of its own, reached through a cuttable relay: `cut` takes the
 * database away from under it, as an outage would. `cleanup` cuts (if not yet) and drops the schema;
 * close the store (or the app built on it) first.
 */
export async function postgresBehindRelay(): Promise<{ store: PostgresStore; cut: () => Promise<void>; cleanup: () => Promise<void> }> {
  const schema = uniqueSchemaName();
  const relay = await cuttableRelay(new URL(POSTGRES_TEST_URL));
  const viaRelay = new URL(POSTGRES_TEST_URL);
  viaRelay.hostname = "127.0.0.1";
  viaRelay.port = String(relay.port);
  try {
    const store = await PostgresStore.open(viaRelay.toString(), { schema, onError: () => undefined });
    return { store, cut: relay.cut, cleanup: async () => (await relay.cut(), await dropSchema(schema)) };
  } catch (error) {
    await relay.cut();
    await dropSchema(schema);
    throw error;
  }
}
