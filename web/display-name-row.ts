/** "Your name": the name that goes with every patch of this page and with its presence, kept in this browser (prefs.ts). */
import h from "crelt";
import type { LiveDocument } from "../src/client/index.js";
import { displayName, setDisplayName } from "./prefs.js";

export function displayNameRow(doc: LiveDocument, changed?: () => void): HTMLElement {
  const name = h("input", { id: "display-name", value: displayName(), maxlength: "64", placeholder: "anonymous", autocomplete: "nickname" });
  name.addEventListener("change", () => {
    const chosen = name.value.trim();
    setDisplayName(chosen);
    doc.setDisplayName(chosen === "" ? undefined : chosen);
    doc.presence.set({ displayName: chosen === "" ? undefined : chosen });
    changed?.();
  });
  return h("div", { class: "name-row" }, h("label", { for: "display-name" }, "Your name"), name);
}
