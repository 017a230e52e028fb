import { describe, expect, it } from "vitest";
import { LiteralValues, NoLiteralError } from "../../src/storage/postgres/postgres-rows.js";

describe("PostgreSQL literal values (a flush sent with the COMMIT)", () => {
  it("writes NULL, booleans, safe integers, quoted strings and bytes as hex", () => {
    const values = new LiteralValues();
    expect(values.rows([[null, undefined, true, false, -42, 2 ** 40, "it's", "a\\b", Buffer.from([0, 255, 39])]])).toBe(
      "(NULL, NULL, TRUE, FALSE, -42, 1099511627776, 'it''s',  E'a\\\\b', decode('00ff27', 'hex'))",
    );
    expect(values.length).toBe("NULLNULLTRUEFALSE-421099511627776'it''s' E'a\\\\b'decode('00ff27', 'hex')".length);
  });

  it.each([
    ["a string holding U+0000, which would end the query string", "a\u0000b"],
    ["a fraction", 1.5],
    ["an integer beyond 2^53", 2 ** 53],
    ["a bigint", 5n],
    ["an object", { a: 1 }],
  ])("refuses %s", (_what, value) => {
    expect(() => new LiteralValues().add(value)).toThrow(NoLiteralError);
  });
});
