// Containers: create and choose one; its API token; its server-to-server keys.
import { admin } from "../api.js";
import { h, replace, run, showInfo, formatTime } from "../dom.js";
import { state, refreshContainers, chooseContainer, go } from "../app.js";

export async function containersPage(main) {
  const newID = h("input", { id: "new-container-id", placeholder: "iCloud.com.example.App", required: true, pattern: "[A-Za-z0-9._\\-]+" });
  const create = h("button", { type: "submit" }, "Create container");
  const createForm = h("form", { class: "row" }, h("label", { for: "new-container-id" }, "Container ID", newID), create);
  createForm.addEventListener("submit", (event) => {
    event.preventDefault();
    run(create, async () => {
      const created = await admin.createContainer(newID.value.trim());
      chooseContainer(created.containerID);
      await refreshContainers();
      showInfo(`Container ${created.containerID} created.`);
      go("containers");
    });
  });

  const rows = state.containers.map((container) => h("tr", {},
    h("td", {}, h("code", {}, container.containerID)),
    h("td", { class: "hide-narrow" }, formatTime(container.created)),
    h("td", {}, container.containerID === state.container ? h("span", { class: "tag good" }, "chosen")
      : h("button", { type: "button", class: "quiet", onclick: () => { chooseContainer(container.containerID); go("containers"); } }, "Choose"))));

  replace(main,
    h("h1", {}, "Containers"),
    h("section", { class: "panel" }, h("h2", {}, "New container"), createForm),
    h("section", { class: "panel" }, h("h2", {}, "All containers"),
      rows.length ? h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "ID"), h("th", { class: "hide-narrow" }, "Created"), h("th", {}, ""))), h("tbody", {}, rows)))
        : h("p", { class: "muted" }, "No containers yet.")),
    state.container ? await tokenSection() : null,
    state.container ? await keysSection() : null);
}

async function tokenSection() {
  const container = state.containers.find((c) => c.containerID === state.container);
  const value = h("code", { id: "api-token" }, "•".repeat(16));
  let shown = false;
  const toggle = h("button", { type: "button", class: "quiet", "aria-controls": "api-token" }, "Show");
  toggle.addEventListener("click", () => {
    shown = !shown;
    value.textContent = shown ? container.apiToken : "•".repeat(16);
    toggle.textContent = shown ? "Hide" : "Show";
  });
  const rotate = h("button", { type: "button", class: "danger", id: "rotate-token" }, "Rotate token");
  rotate.addEventListener("click", () => {
    if (!confirm("Rotate the API token? Apps using the old one stop working at once.")) return;
    run(rotate, async () => {
      const rotated = await admin.rotateToken(state.container);
      await refreshContainers();
      showInfo("The API token was replaced.");
      go("containers");
      return rotated;
    });
  });
  return h("section", { class: "panel" }, h("h2", {}, `API token of ${state.container}`),
    h("p", { class: "muted" }, "Clients send it as ckAPIToken."),
    h("div", { class: "row" }, value, toggle, rotate));
}

async function keysSection() {
  const { keys } = await admin.keys(state.container);
  const pem = h("textarea", { id: "key-pem", placeholder: "-----BEGIN PUBLIC KEY-----", required: true });
  const role = h("input", { id: "key-role", placeholder: "Admin (empty: every permission)" });
  const add = h("button", { type: "submit" }, "Add key");
  const form = h("form", { class: "stack" }, h("label", { for: "key-pem" }, "Public key (PEM, P-256)"), pem,
    h("label", { for: "key-role" }, "Role"), role, h("div", {}, add));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(add, async () => {
      const { keyID } = await admin.addKey(state.container, pem.value.trim(), role.value.trim() || undefined);
      showInfo(`Key ${keyID} added.`);
      go("containers");
    });
  });
  const rows = keys.map((key) => {
    const revoke = h("button", { type: "button", class: "danger" }, "Revoke");
    revoke.addEventListener("click", () => {
      if (!confirm(`Revoke key ${key.keyID}? Requests signed with it fail at once.`)) return;
      run(revoke, async () => { await admin.revokeKey(state.container, key.keyID); showInfo("Key revoked."); go("containers"); });
    });
    return h("tr", {}, h("td", {}, h("code", {}, key.keyID)), h("td", {}, key.role ?? h("span", { class: "muted" }, "every permission")),
      h("td", { class: "hide-narrow" }, formatTime(key.created)), h("td", {}, revoke));
  });
  return h("section", { class: "panel" }, h("h2", {}, "Server-to-server keys"),
    rows.length ? h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Key ID"), h("th", {}, "Role"), h("th", { class: "hide-narrow" }, "Added"), h("th", {}, ""))), h("tbody", {}, rows)))
      : h("p", { class: "muted" }, "No keys."),
    h("h3", {}, "Add a key"), form);
}
