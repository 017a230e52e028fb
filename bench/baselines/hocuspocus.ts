/**
 * Peer server for the open-editors scenario: Hocuspocus (Yjs over WebSocket) with its SQLite
 * extension, as its documentation sets it up, nothing else: every document a Y.Doc in memory, each
 * update broadcast to the document's connections (coalesced within one event-loop turn, its
 * default), the whole document stored to SQLite by the extension after 2 s without a change (at most
 * every 10 s while changes keep coming: its defaults `debounce` 2000, `maxDebounce` 10000). Awareness
 * (cursors) is relayed as Hocuspocus relays it. The documents are created by the load side (a seed
 * update through a WebSocket, bench/load/peer-editors.ts). GET / answers 200 ("Welcome to Hocuspocus!").
 * BENCH_DB: the SQLite file.
 */
import { Server } from "@hocuspocus/server";
import { SQLite } from "@hocuspocus/extension-sqlite";

const server = new Server({
  port: 0,
  address: "127.0.0.1",
  quiet: true,
  extensions: [new SQLite({ database: process.env.BENCH_DB ?? "hocuspocus.db" })],
});
await server.listen();
const { port } = server.httpServer.address() as { port: number };
const address = `http://127.0.0.1:${port}`;
process.stdout.write(`${JSON.stringify({ msg: `listening on ${address}`, address })}\n`);
process.once("SIGTERM", () => void server.destroy().then(() => process.exit(0), () => process.exit(1)));
