/** The editor page's entry: `/` is the start page, `/d/<uuid>` a document, `/r/<uuid>` a read-only page (routes.ts). */
import h from "crelt";
import "./styles.css";
import { createClient } from "../src/client/index.js";
import { replace } from "./replace-children.js";
import { renderDocument } from "./doc-page.js";
import { renderHome } from "./home.js";
import { keyOf, routeOf } from "./routes.js";
import { renderReadOnly } from "./read-page.js";

const root = document.getElementById("app") ?? document.body;
const client = createClient({ baseUrl: "" });
const route = routeOf(window.location);
// An encrypted document's key, from the link's fragment: it stays in this page (docs/encryption.md).
const key = keyOf(window.location);
if (route.page === "document") void renderDocument(root, client, route.id, key);
else if (route.page === "read-only") void renderReadOnly(root, client, route.readId, key);
else if (route.page === "home") renderHome(root, client);
else replace(root, h("main", { class: "home" }, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "/" }, "Go to the start page"))));
