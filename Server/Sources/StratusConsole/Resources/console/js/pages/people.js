// People: the operators who sign in to the console and the admin API (administrators manage them), each with a
// role per container, and the audit log of every admin action (who, what, when, from where).
import { admin } from "../api.js";
import { h, replace, run, showInfo, formatTime, openDialog } from "../dom.js";
import { state, go } from "../app.js";
import { describeAction } from "../audit-actions.js";

export async function peoplePage(main, parameters) {
  const session = await admin.session();
  const me = session.actor ?? { name: "", administrator: false, roles: {} };
  const operators = me.administrator ? (await admin.operators()).operators : null;
  const adminKey = me.administrator ? await admin.adminKey() : null;
  const auditView = h("div", { id: "audit" });
  replace(main,
    h("h1", {}, "People"),
    h("p", { class: "muted" }, `Signed in as ${me.name}${me.administrator ? ", an administrator" : ""}. `,
      "Viewers read data and telemetry; developers also change the development environment; owners deploy, manage keys and delete."),
    operators ? operatorTable(operators, me) : h("p", {}, "Only administrators manage people."),
    operators ? addForm() : null,
    adminKey ? adminKeySection(adminKey, me) : null,
    h("h2", {}, "Audit log"), auditForm(parameters, auditView, me), auditView);
  await showAudit(auditView, parameters, me);
}

function operatorTable(operators, me) {
  if (!operators.length) return h("p", {}, "No operators yet: add one below, or keep using the admin key.");
  return h("div", { class: "table-wrap" }, h("table", { id: "operators" },
    h("thead", {}, h("tr", {}, ["Person", "Roles", "Authenticator", "State", "Actions"].map((name) => h("th", {}, name)))),
    h("tbody", {}, operators.map((person) => h("tr", { dataset: { operator: person.emailAddress } },
      h("td", {}, h("div", {}, person.emailAddress), h("div", { class: "muted" }, person.name)),
      h("td", {}, person.administrator ? h("span", { class: "tag good" }, "administrator") : null,
        Object.entries(person.roles).map(([container, role]) => h("div", {}, `${role} of `, h("code", {}, container)))),
      h("td", {}, person.totpEnabled ? "set up" : h("span", { class: "tag warn" }, "not set up")),
      h("td", {}, person.disabled ? h("span", { class: "tag bad" }, "disabled") : "active"),
      h("td", {}, person.emailAddress === me.name ? h("span", { class: "muted" }, "you") : [
        h("button", { type: "button", class: "quiet", onclick: (event) => run(event.target, async () => {
          await admin.updateOperator(person.id, { disabled: !person.disabled });
          go("people");
          showInfo(`${person.emailAddress} is ${person.disabled ? "enabled" : "disabled and signed out everywhere"}.`);
        }) }, person.disabled ? "Enable" : "Disable"),
        h("button", { type: "button", class: "quiet", onclick: () => resetDialog(person) }, "Reset"),
        h("button", { type: "button", class: "quiet delete", onclick: (event) => run(event.target, async () => {
          if (!confirm(`Delete ${person.emailAddress}?`)) return;
          await admin.deleteOperator(person.id);
          go("people");
        }) }, "Delete"),
      ]))))));
}

/** The shared admin key: whether it is in use, a rotation that shows the new key once, and turning it off. */
function adminKeySection(key, me) {
  const signedInWithKey = me.name === "admin key";
  const changed = key.changedAt ? ` Last ${key.enabled ? "rotated" : "turned off"} ${formatTime(key.changedAt)} by ${key.changedBy}.` : "";
  const rotate = h("button", { type: "button", id: "rotate-admin-key", class: "quiet" }, key.enabled ? "Rotate" : "Turn on with a new key");
  rotate.addEventListener("click", () => run(rotate, async () => {
    if (!confirm("Make a new admin key? The current one stops working on every node at once.")) return;
    const { adminKey } = await admin.rotateAdminKey();
    openDialog("The new admin key", h("div", { class: "stack" },
      h("p", {}, "It is shown only this once. Each node's data folder admin.key is rewritten; nodes given --admin-key need it at their next start."),
      h("code", { id: "new-admin-key" }, adminKey),
      signedInWithKey ? h("p", { class: "muted" }, "This session was started with the old key: sign in again with the new one.") : null));
  }));
  const turnOff = h("button", { type: "button", id: "turn-off-admin-key", class: "quiet delete" }, "Turn off");
  turnOff.addEventListener("click", () => run(turnOff, async () => {
    if (!confirm("Turn the admin key off? Only people will sign in, and the audit log will name them.")) return;
    await admin.turnOffAdminKey();
    go("people");
    showInfo("The admin key is turned off on every node.");
  }));
  return h("section", { id: "admin-key-state" },
    h("h2", {}, "Admin key"),
    h("p", {}, key.enabled ? "The shared admin key is in use." : "The admin key is turned off: operators sign in as themselves.", changed),
    h("div", { class: "row" }, rotate,
      key.enabled && !signedInWithKey ? turnOff : null,
      key.enabled && signedInWithKey ? h("span", { class: "muted" }, "Sign in as an administrator to turn it off.") : null));
}

/** Asks for a new password for someone who lost theirs or their authenticator; they set the authenticator up again. */
function resetDialog(person) {
  const password = h("input", { id: "reset-password", type: "password", autocomplete: "new-password", minlength: 12, required: true });
  const form = h("form", { class: "stack" },
    h("label", { for: "reset-password" }, "New password (12 characters or more)"), password, h("button", { type: "submit" }, "Reset"));
  const dialog = openDialog(`Reset ${person.emailAddress}`, form);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form.querySelector("button[type=submit]"), async () => {
      await admin.resetOperator(person.id, password.value);
      dialog.close();
      showInfo(`${person.emailAddress}'s password was reset and their authenticator removed; their sessions ended.`);
    });
  });
  password.focus();
}

function addForm() {
  const form = h("form", { id: "operator-form", class: "panel stack" },
    h("h2", {}, "Add a person"),
    h("label", { for: "new-operator-email" }, "Email", h("input", { id: "new-operator-email", type: "email", required: true })),
    h("label", { for: "new-operator-name" }, "Name", h("input", { id: "new-operator-name" })),
    h("label", { for: "new-operator-password" }, "First password (12 characters or more; give it to them)",
      h("input", { id: "new-operator-password", type: "password", autocomplete: "new-password", required: true })),
    h("label", { for: "new-operator-role" }, `Role in ${state.container || "the chosen container"}`, h("select", { id: "new-operator-role" },
      ["none", "viewer", "developer", "owner"].map((role) => h("option", { value: role }, role)))),
    h("label", { class: "switch", for: "new-operator-administrator" }, h("input", { id: "new-operator-administrator", type: "checkbox" }),
      "Administrator (manages people and every container)"),
    h("button", { type: "submit" }, "Add"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form.querySelector("button[type=submit]"), async () => {
      const role = form.querySelector("#new-operator-role").value;
      const made = await admin.createOperator({
        emailAddress: form.querySelector("#new-operator-email").value.trim(), name: form.querySelector("#new-operator-name").value.trim(),
        password: form.querySelector("#new-operator-password").value, administrator: form.querySelector("#new-operator-administrator").checked,
        roles: role !== "none" && state.container ? { [state.container]: role } : {},
      });
      go("people");
      showInfo(`Added ${made.emailAddress}; they set up an authenticator app at sign-in.`);
    });
  });
  return form;
}

function auditForm(parameters, auditView, me) {
  const form = h("form", { id: "audit-form", class: "row" },
    h("label", { for: "audit-actor" }, "Who", h("input", { id: "audit-actor", value: parameters.actor ?? "", placeholder: "dev@example.com or admin key" })),
    me.administrator ? h("label", { class: "switch", for: "audit-all" }, h("input", { id: "audit-all", type: "checkbox" }), "Every container") : null,
    h("button", { type: "submit" }, "Show"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const search = { actor: form.querySelector("#audit-actor").value.trim(), all: form.querySelector("#audit-all")?.checked ? "1" : "" };
    run(form.querySelector("button[type=submit]"), () => showAudit(auditView, search, me));
  });
  return form;
}

async function showAudit(auditView, search, me) {
  const query = { limit: "100" };
  if (!(me.administrator && search.all)) query.container = state.container;
  if (search.actor) query.actor = search.actor;
  const { entries } = await admin.audit(query);
  replace(auditView, entries.length === 0 ? h("p", { class: "muted" }, "No admin actions recorded.") : h("div", { class: "table-wrap" }, h("table", { id: "audit-table" },
    h("thead", {}, h("tr", {}, ["When", "Who", "What", "Container", "Status", "From"].map((name) => h("th", {}, name)))),
    h("tbody", {}, entries.map((entry) => h("tr", {},
      h("td", {}, formatTime(entry.time)), h("td", {}, entry.actor), h("td", { title: entry.action }, describeAction(entry.action)),
      h("td", {}, entry.containerID ?? h("span", { class: "muted" }, "server")),
      h("td", { class: `status-${String(entry.status)[0]}` }, String(entry.status)), h("td", { class: "muted" }, entry.address)))))));
}
