/** The editor page's entry: `/` is the start page, `/d/<uuid>` a document (the link users share). */
import "./styles.css";
import { createClient } from "../src/client/index.js";
import { h, replace } from "./dom.js";
import { renderDocument } from "./doc-page.js";
import { renderHome } from "./home.js";

const UUID = /^\/d\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\/?$/;

const root = document.getElementById("app") ?? document.body;
const client = createClient({ baseUrl: "" });
const match = UUID.exec(window.location.pathname);
if (match?.[1]) void renderDocument(root, client, match[1].toLowerCase());
else if (window.location.pathname === "/") renderHome(root, client);
else replace(root, h("main", { class: "home" }, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "/" }, "Go to the start page"))));
