import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REMEMBERED_ADDRESSES, rateLimits } from "../../src/http/rate-limits.js";
import { LIMITS_OFF } from "../support/test-app.js";
import { T0_MS } from "../support/http-expect.js";

// The limits remember at most REMEMBERED_ADDRESSES addresses each, however many call: past that the
// address seen least recently is forgotten and its count starts again. Seen through behaviour: an
// address over its limit is still refused after REMEMBERED_ADDRESSES - 1 others have written, and
// let through once REMEMBERED_ADDRESSES others have written since it was last seen. A bare app
// with one write route keeps the 20,000 requests cheap; the date stands still, so no window ends.

let app: FastifyInstance | undefined;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"], now: T0_MS });
});

afterEach(async () => {
  vi.useRealTimers();
  await app?.close();
  app = undefined;
});

/** The address number `index` (0 … 65,535 × 256), spelt as IPv4 in 10.0.0.0/8. */
const address = (index: number) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

describe("the store of client addresses", () => {
  it(`holds at most ${REMEMBERED_ADDRESSES} addresses per limit, forgetting the one seen least recently`, { timeout: 60_000 }, async () => {
    app = Fastify({ trustProxy: true });
    rateLimits(app, { ...LIMITS_OFF, writesPerSecond: 1 }, "/api/v1");
    app.post("/api/v1/notes", (_request, reply) => reply.code(204).send());
    const write = async (from: string) => (await app!.inject({ method: "POST", url: "/api/v1/notes", headers: { "x-forwarded-for": from } })).statusCode;
    const others = async (first: number, count: number) => {
      const statuses = new Set<number>();
      for (let index = first; index < first + count; index++) statuses.add(await write(address(index)));
      return [...statuses];
    };
    const over = "192.0.2.1";

    expect([await write(over), await write(over)]).toEqual([204, 429]);
    expect(await others(0, REMEMBERED_ADDRESSES - 1)).toEqual([204]);
    // Still remembered (and now the most recent one again).
    expect(await write(over)).toBe(429);
    expect(await others(REMEMBERED_ADDRESSES, REMEMBERED_ADDRESSES)).toEqual([204]);
    expect(await write(over)).toBe(204);
  });
});
