import { afterEach, beforeEach, expect, it } from "vitest";
import { openDocument } from "../../src/client/index.js";
import { serveTestApp, type ServedApp } from "../support/client-harness.js";

let s: ServedApp;
beforeEach(async () => {
  s = await serveTestApp();
});
afterEach(async () => {
  await s.close();
});

it("two live documents converge", async () => {
  const created = await s.client.createDocument({ title: "T", content: "a\nb\nc" });
  const one = await openDocument(s.client, created.id, { waitSeconds: 2 });
  const two = await openDocument(s.client, created.id, { waitSeconds: 2 });
  one.setText("A\nb\nc");
  two.setText("a\nb\nC");
  await one.whenSynced(5000);
  await two.whenSynced(5000);
  for (let i = 0; i < 50 && (one.text !== two.text || one.version !== two.version); i++) await new Promise((r) => setTimeout(r, 20));
  expect(one.text).toBe("A\nb\nC");
  expect(two.text).toBe("A\nb\nC");
  expect((await s.client.getDocument(created.id)).content).toBe("A\nb\nC");
  one.close();
  two.close();
});
