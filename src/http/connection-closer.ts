import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";

/**
 * Ends, on shutdown, the connections that carry no request: idle keep-alive ones and ones that
 * never sent a request (Node's own idle closing misses those, so a load balancer's spare
 * connection would hold the shutdown). A connection with a request in flight is ended right
 * after its answer, so every in-flight request still gets one.
 */
export function closeConnectionsOnShutdown(app: FastifyInstance): void {
  const inFlight = new Map<Socket, number>();
  let closing = false;

  app.server.on("connection", (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    inFlight.set(socket, 0);
    socket.once("close", () => inFlight.delete(socket));
  });
  app.server.on("request", (request: { socket: Socket }, response: { once(event: "finish" | "close", listener: () => void): void }) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (closing && left === 0) socket.end();
    };
    response.once("finish", finished);
    response.once("close", finished);
  });
  app.addHook("preClose", async () => {
    closing = true;
    for (const [socket, requests] of inFlight) if (requests === 0) socket.destroy();
  });
}
