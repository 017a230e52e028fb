/** The tracker panel's login form; the session it gets is handed on (the panel keeps it in sessionStorage only). */
import h from "crelt";
import type { FolioClient, TrackerSession } from "../src/client/index.js";
import { messageOf } from "./error-message.js";
import type { StatusLine } from "./status-line.js";

export function trackerLogin(client: FolioClient, status: StatusLine, loggedIn: (session: TrackerSession) => void): HTMLFormElement {
  const user = h("input", { id: "tracker-user", name: "username", autocomplete: "username", required: true, maxlength: "255" });
  const password = h("input", { id: "tracker-password", name: "password", type: "password", autocomplete: "current-password", required: true, maxlength: "255" });
  const submit = h("button", { type: "submit" }, "Log in to the tracker");
  const form = h("form", { class: "tracker-login" }, h("label", { for: "tracker-user" }, "Tracker user"), user, h("label", { for: "tracker-password" }, "Password"), password, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit.disabled = true;
    status.say("Logging in…");
    client.tracker
      .login({ username: user.value, password: password.value })
      .then(loggedIn)
      .catch((error: unknown) => {
        status.say(`Login failed: ${messageOf(error)}`);
        submit.disabled = false;
      });
  });
  return form;
}
