import { describe, expect, it } from "vitest";
import { keyOf, routeOf } from "../../web/routes.js";

const ID = "0b6f5a52-3c1e-4d8a-9f11-2a7b4c9d0e13";

describe("routeOf: which page a path asks for", () => {
  it("tells the start page, a document, a read-only page and anything else apart, ids lower-cased", () => {
    const routes = ["/", `/d/${ID}`, `/d/${ID.toUpperCase()}/`, `/r/${ID}`, `/r/${ID.toUpperCase()}`, "/r/", `/r/${ID}x`, `/x/${ID}`, "/d/not-a-uuid", `/r/${ID}/history`].map((pathname) =>
      routeOf({ pathname }),
    );
    expect(routes).toEqual([
      { page: "home" },
      { page: "document", id: ID },
      { page: "document", id: ID },
      { page: "read-only", readId: ID },
      { page: "read-only", readId: ID },
      { page: "not-found" },
      { page: "not-found" },
      { page: "not-found" },
      { page: "not-found" },
      { page: "not-found" },
    ]);
  });
});

describe("keyOf: an encrypted document's key from the link's fragment", () => {
  it("reads #key=, and nothing from an empty or other fragment", () => {
    const key = "Yk3-_q8Zr0aVxW2mN5tP7cL9dF1gH4jK6sB0eR8uI2o";
    expect([`#key=${key}`, `#x=1&key=${key}`, "#key=", "#other", ""].map((hash) => keyOf({ hash }))).toEqual([key, key, undefined, undefined, undefined]);
  });
});
