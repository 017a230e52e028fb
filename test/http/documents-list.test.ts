import bcrypt from "bcryptjs";
import { hash as argon2Hash } from "@node-rs/argon2";
import { beforeAll, describe, expect, it } from "vitest";
import { T0, at, basicAuth, createDocument, expectJson } from "../support/http-expect.js";
import { BCRYPT_HASH, LIST, NO_CREDENTIALS, PASSWORD, expectUnauthorized, list, listAppPerTest, right, wrong } from "../support/document-list.js";

/* GET /documents: the list and the master password that guards it. Its lock after failures: documents-list-lock.test.ts. */

let argon2idHash: string;

beforeAll(async () => {
  argon2idHash = await argon2Hash(PASSWORD);
});

const appWith = listAppPerTest();

describe("GET /documents: the list", () => {
  it("answers 200 with every existing document oldest first, with full content, deleted ones left out", async () => {
    const app = await appWith(BCRYPT_HASH);
    const first = await createDocument(app.app, { title: "First", content: "one\ntwo" });
    app.clock.advance(1000);
    const doomed = await createDocument(app.app, { title: "Doomed", content: "x" });
    app.clock.advance(1000);
    const third = await createDocument(app.app, { title: "Third", content: "" });
    app.clock.advance(1000);
    await app.app.inject({ method: "DELETE", url: `${LIST}/${doomed.id}` });
    await app.app.inject({ method: "PUT", url: `${LIST}/${first.id}`, payload: { title: "First", content: "one\ntwo\nthree" } });

    const response = await list(app, right);

    expectJson(response, 200, [
      { id: first.id, title: "First", content: "one\ntwo\nthree", version: 2, createdAt: T0, updatedAt: at(3000) },
      { id: third.id, title: "Third", content: "", version: 1, createdAt: at(2000), updatedAt: at(2000) },
    ]);
  });

  it("answers 200 with an empty array when there is no document", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectJson(await list(app, right), 200, []);
  });

  it("lists a restored document again", async () => {
    const app = await appWith(BCRYPT_HASH);
    const created = await createDocument(app.app, { title: "Back", content: "b" });
    await app.app.inject({ method: "DELETE", url: `${LIST}/${created.id}` });
    await app.app.inject({ method: "POST", url: `${LIST}/${created.id}/restore` });

    expectJson(await list(app, right), 200, [{ id: created.id, title: "Back", content: "b", version: 3, createdAt: T0, updatedAt: T0 }]);
  });
});

describe("GET /documents: the master password", () => {
  it("accepts the password against a bcrypt hash", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectJson(await list(app, right), 200, []);
  });

  it("accepts the password against a {bcrypt}-prefixed hash", async () => {
    const app = await appWith(`{bcrypt}${BCRYPT_HASH}`);

    expectJson(await list(app, right), 200, []);
  });

  it("accepts the password against an argon2id hash", async () => {
    expect(argon2idHash).toMatch(/^\$argon2id\$/);
    const app = await appWith(argon2idHash);

    expectJson(await list(app, right), 200, []);
  });

  it("decodes the credentials as UTF-8 and splits them at the first colon only", async () => {
    const password = "pä:ss wörd";
    const app = await appWith(bcrypt.hashSync(password, 4));

    expectJson(await list(app, basicAuth("admin", password)), 200, []);
  });

  it("accepts the scheme name in any case", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectJson(await list(app, right.replace("Basic", "bAsIc")), 200, []);
  });

  it("answers 401 with the Basic challenge for a wrong password", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectUnauthorized(await list(app, wrong));
  });

  it("answers 401 for a wrong password against an argon2id hash", async () => {
    const app = await appWith(argon2idHash);

    expectUnauthorized(await list(app, wrong));
  });

  it("answers 401 for the right password under a user other than admin", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectUnauthorized(await list(app, basicAuth("root", PASSWORD)));
  });

  it("answers 401 without credentials", async () => {
    const app = await appWith(BCRYPT_HASH);

    expectUnauthorized(await list(app), NO_CREDENTIALS);
  });

  it.each([
    ["another scheme", `Bearer ${Buffer.from(`admin:${PASSWORD}`).toString("base64")}`],
    ["a token that is not base64", "Basic !!!not-base64!!!"],
    ["no token after the scheme", "Basic "],
    ["credentials without a colon", `Basic ${Buffer.from(`admin${PASSWORD}`).toString("base64")}`],
  ])("answers 401 for a malformed Authorization header: %s", async (_name, authorization) => {
    const app = await appWith(BCRYPT_HASH);

    expectUnauthorized(await list(app, authorization), NO_CREDENTIALS);
  });

  it("locks the list for everybody when no hash is configured, even for a password", async () => {
    const app = await appWith(undefined);

    expectUnauthorized(await list(app, right), "the document list is locked: no master password is configured");
    expectUnauthorized(await list(app, basicAuth("admin", "")), "the document list is locked: no master password is configured");
  });
});
