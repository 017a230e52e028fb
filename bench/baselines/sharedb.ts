/**
 * Peer server for the open-editors scenario: ShareDB (json0 operational transformation over
 * WebSocket) with its in-memory store (`ShareDB.MemoryDB`: nothing durable, every op kept in memory),
 * `ws` and `@teamwork/websocket-json-stream`, as its documentation sets it up. A document is
 * `{ lines: [20 strings] }` and a typed line is one json0 list replace (`{p:["lines",k], ld, li}`).
 * HTTP: GET / answers 200; POST /create/<id> creates a document of 20 lines (the load side's set-up,
 * as Folio's POST /documents). Presence (cursors) is on (`presence: true`) and relayed as ShareDB relays it.
 */
import { createServer } from "node:http";
import ShareDB from "sharedb";
import WebSocketJSONStream from "@teamwork/websocket-json-stream";
import { WebSocketServer } from "ws";

const backend = new ShareDB({ presence: true, doNotForwardSendPresenceErrorsToClient: true });
const setup = backend.connect();
const LINES = 20;

const http = createServer((request, response) => {
  const match = /^\/create\/([\w-]+)$/.exec(request.url ?? "");
  if (request.method === "POST" && match) {
    const doc = setup.get("docs", match[1]!);
    const lines = Array.from({ length: LINES }, (_, i) => `line ${i} of a document with a few editors`);
    doc.create({ lines }, (error) => {
      response.writeHead(error ? 500 : 201, { "content-type": "application/json" });
      response.end(JSON.stringify(error ? { error: String(error) } : { id: match[1], version: doc.version }));
      // The set-up connection need not follow the document.
      doc.destroy();
    });
    return;
  }
  response.writeHead(200, { "content-type": "text/plain" });
  response.end("sharedb");
});
const wss = new WebSocketServer({ server: http });
wss.on("connection", (socket) => backend.listen(new WebSocketJSONStream(socket)));
http.listen(0, "127.0.0.1", () => {
  const { port } = http.address() as { port: number };
  const address = `http://127.0.0.1:${port}`;
  process.stdout.write(`${JSON.stringify({ msg: `listening on ${address}`, address })}\n`);
});
process.once("SIGTERM", () => {
  wss.close();
  http.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
