import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import { PROBLEM_TYPE_BASE, PROBLEMS } from "./problem-details.js";
import { REQUEST_ID_PATTERN } from "./request-id.js";

/**
 * Answers a request that Node's HTTP parser refused before Fastify saw it (a broken
 * Content-Length, a control character in a header name, Content-Length with chunked framing, an
 * unknown method, headers too large, a request that took too long to arrive) with problem+json,
 * like every other error. Fastify's own handler answers such requests with a bare JSON body.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [code, status, detail] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? (["request-timeout", 408, "the request did not arrive in time"] as const)
      : error.code === "HPE_HEADER_OVERFLOW"
        ? (["headers-too-large", 431, "the request headers are larger than the service accepts"] as const)
        : (["invalid-request", 400, `the request is not valid HTTP (${error.code ?? "unreadable"})`] as const);
  const packet = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 2048).toString("latin1") : "";
  const target = /^[A-Za-z]+ (\/\S*) HTTP\//.exec(packet)?.[1] ?? "";
  // Every answer carries a request id (src/http/request-id.ts): the caller's, when it got that far and is sane.
  const given = /^x-request-id:[ \t]*([^\r\n]*?)[ \t]*\r?$/im.exec(packet)?.[1];
  const requestId = given !== undefined && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
  const body = JSON.stringify({ type: PROBLEM_TYPE_BASE + code, title: PROBLEMS[code].title, status, detail, instance: target.split("?")[0] ?? "" });
  if (socket.writable) {
    const reason = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" }[status];
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
