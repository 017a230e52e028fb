import { describe, expect, it } from "vitest";
import { UUID_PATTERN, UUID_SOURCE } from "../../src/core/uuid.js";

describe("the UUID pattern", () => {
  it.each(["0b7e3c1a-9d2f-4e6b-8a5c-1f2e3d4c5b6a", "0B7E3C1A-9D2F-4E6B-8A5C-1F2E3D4C5B6A", "00000000-0000-0000-0000-000000000000"])("takes %s", (id) => {
    expect(UUID_PATTERN.test(id)).toBe(true);
  });

  it.each(["", "urn:uuid:0b7e3c1a-9d2f-4e6b-8a5c-1f2e3d4c5b6a", "{0b7e3c1a-9d2f-4e6b-8a5c-1f2e3d4c5b6a}", "0b7e3c1a9d2f4e6b8a5c1f2e3d4c5b6a", "0b7e3c1a-9d2f-4e6b-8a5c-1f2e3d4c5b6g", "0b7e3c1a-9d2f-4e6b-8a5c-1f2e3d4c5b6a\n"])(
    "refuses %j",
    (id) => {
      expect(UUID_PATTERN.test(id)).toBe(false);
    },
  );

  it("gives the lower-case form as a source for larger patterns", () => {
    expect(new RegExp(`^${UUID_SOURCE}$`).test("0b7e3c1a-9d2f-4e6b-8a5c-1f2e3d4c5b6a")).toBe(true);
    expect(new RegExp(`^${UUID_SOURCE}$`).test("0B7E3C1A-9D2F-4E6B-8A5C-1F2E3D4C5B6A")).toBe(false);
  });
});
