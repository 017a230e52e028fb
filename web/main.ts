/** The editor page's entry: `/` is the start page, `/d/<uuid>` a document, `/r/<uuid>` a read-only page (routes.ts). */
import "./styles.css";
import { createClient } from "../src/client/index.js";
import { h, replace } from "./dom.js";
import { renderDocument } from "./doc-page.js";
import { renderHome } from "./home.js";
import { routeOf } from "./routes.js";
import { renderReadOnly } from "./read-page.js";

const root = document.getElementById("app") ?? document.body;
const client = createClient({ baseUrl: "" });
const route = routeOf(window.location);
if (route.page === "document") void renderDocument(root, client, route.id);
else if (route.page === "read-only") void renderReadOnly(root, client, route.readId);
else if (route.page === "home") renderHome(root, client);
else replace(root, h("main", { class: "home" }, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "/" }, "Go to the start page"))));
