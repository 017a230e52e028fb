import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHECKSUM_PATTERN, checksumOf, pureSha256Hex } from "../../src/core/checksum.js";
import { propertyParams } from "./property-support.js";

function nodeSha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

describe("checksumOf", () => {
  it("gives the SHA-256 of no bytes for the empty text", () => {
    expect(checksumOf("")).toEqual("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("gives the SHA-256 of the UTF-8 bytes of the LF text", () => {
    expect(nodeSha256Hex("a\nb")).toEqual("7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78");
    expect(checksumOf("a\nb")).toEqual("sha256:7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78");
    expect(checksumOf("a\r\nb")).toEqual("sha256:7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78");
  });

  it("gives a CRLF text the checksum of its LF text", () => {
    expect(checksumOf("a\r\nb\r\n")).toEqual(checksumOf("a\nb\n"));
  });

  it("uses the hasher it is given", () => {
    expect(checksumOf("a\r\nb", (text) => `<${text}>`)).toEqual("sha256:<a\nb>");
  });

  it("matches its own pattern", () => {
    expect(new RegExp(CHECKSUM_PATTERN).test(checksumOf("text"))).toEqual(true);
    expect(new RegExp(CHECKSUM_PATTERN).test("sha256:ABC")).toEqual(false);
  });
});

describe("pureSha256Hex", () => {
  it("agrees with node:crypto on strings with non-BMP characters, U+0000 and lone surrogates", () => {
    // Code points rather than fc.string({ unit: "binary" }), which is slow to generate; a code point
    // in D800–DFFF gives a lone surrogate, which both encoders turn into U+FFFD.
    const codePoint = fc.oneof(
      fc.integer({ min: 0, max: 0x10ffff }),
      fc.constantFrom(0x0000, 0x1f600, 0x10ffff, 0xd800, 0xdc00, 0xe9, 0x0d, 0x0a, 0x61),
    );
    const text = fc.array(codePoint, { maxLength: 120 }).map((points) => String.fromCodePoint(...points));
    fc.assert(
      fc.property(text, (value) => {
        expect(pureSha256Hex(value)).toEqual(nodeSha256Hex(value));
      }),
      propertyParams(500),
    );
  });
});
