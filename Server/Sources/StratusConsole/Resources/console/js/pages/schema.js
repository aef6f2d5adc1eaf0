// Schema: record types with their fields and grants, edited in forms or as text; the deploy to production.
import { admin, ServerError } from "../api.js";
import { h, replace, run, showInfo } from "../dom.js";
import { state, go } from "../app.js";
import { typeLabel, indexLabels, constraintLabels, roleLabel, permissions, userFields } from "../schema-model.js";
import { typeEditor } from "./schema-editor.js";

export async function schemaPage(main, parameters) {
  const tab = parameters.tab ?? "types";
  const tabs = h("div", { class: "tabs", role: "tablist" },
    [["types", "Record types"], ["text", "Schema text"], ["deploy", "Deploy to production"]].map(([id, title]) =>
      h("button", { type: "button", role: "tab", id: `tab-${id}`, "aria-selected": String(tab === id), onclick: () => go("schema", { tab: id }) }, title)));
  const body = h("div", { role: "tabpanel", "aria-labelledby": `tab-${tab}` });
  replace(main, h("h1", {}, `Schema · ${state.environment}`), tabs, body);
  if (tab === "text") await textTab(body);
  else if (tab === "deploy") await deployTab(body);
  else await typesTab(body, parameters);
}

const isProduction = () => state.environment === "production";

/** Saves the development schema. When that would remove types or fields that records hold, the server says
 * which and how many; the operator is asked, in those words, before they go with their values. */
async function saveConfirmingLosses(save) {
  try {
    return await save(false);
  } catch (error) {
    const losesRecords = error instanceof ServerError && error.reason.startsWith("importing this schema would remove");
    if (!losesRecords || !confirm(`${error.reason.replace(/; import with force.*$/, "")}.\n\nRemove them, with their values?`)) throw error;
    return await save(true);
  }
}

async function typesTab(body, parameters) {
  const schema = await admin.schema(state.container, state.environment);
  if (parameters.edit !== undefined) {
    replace(body, typeEditor(schema, parameters.edit, async (saved) => {
      const result = await saveConfirmingLosses((force) => admin.saveSchema(state.container, saved, force));
      showInfo(result.changes.length ? `Saved: ${result.changes.map((c) => c.description).join("; ")}` : "Saved; nothing changed.");
      go("schema");
    }));
    return;
  }
  const names = Object.keys(schema.recordTypes).sort((a, b) => a.localeCompare(b));
  replace(body,
    isProduction() ? h("p", { class: "notice info" }, "Production's schema changes only by deploying the development schema.") :
      h("div", { class: "row" }, h("button", { type: "button", id: "new-type", onclick: () => go("schema", { edit: "" }) }, "New record type")),
    rolesPanel(schema),
    names.map((name) => typeCard(schema, name)));
}

function rolesPanel(schema) {
  const roleName = h("input", { id: "new-role", placeholder: "Admin", pattern: "[A-Za-z][A-Za-z0-9_]*" });
  const add = h("button", { type: "submit" }, "Add role");
  const form = h("form", { class: "row" }, h("label", { for: "new-role" }, "New role", roleName), add);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(add, async () => {
      schema.roles = [...new Set([...(schema.roles ?? []), roleName.value.trim()])];
      await admin.saveSchema(state.container, schema);
      showInfo(`Role ${roleName.value.trim()} added.`);
      go("schema");
    });
  });
  const roles = (schema.roles ?? []).map((role) => h("span", { class: "tag" }, role, isProduction() ? null :
    h("button", { type: "button", class: "quiet", "aria-label": `Remove role ${role}`, onclick: (event) => run(event.currentTarget, async () => {
      schema.roles = schema.roles.filter((r) => r !== role);
      for (const type of Object.values(schema.recordTypes)) delete type.grants[role];
      await admin.saveSchema(state.container, schema);
      go("schema");
    }) }, "×")));
  return h("section", { class: "panel" }, h("h2", {}, "Custom roles"),
    roles.length ? h("p", {}, roles) : h("p", { class: "muted" }, "None. Roles such as Admin get grants on record types; assign them to users under Users."),
    isProduction() ? null : form);
}

function typeCard(schema, name) {
  const type = schema.recordTypes[name];
  const fields = userFields(type);
  const grants = Object.entries(type.grants ?? {}).sort();
  const remove = h("button", { type: "button", class: "danger" }, "Delete type");
  remove.addEventListener("click", () => {
    if (!confirm(`Delete the record type ${name} from the development schema?`)) return;
    run(remove, async () => {
      delete schema.recordTypes[name];
      await saveConfirmingLosses((force) => admin.saveSchema(state.container, schema, force));
      showInfo(`${name} deleted from development.`);
      go("schema");
    });
  });
  return h("section", { class: "panel type-card", "aria-labelledby": `type-${name}` },
    h("header", {}, h("h2", { id: `type-${name}` }, name),
      h("div", { class: "row" },
        h("a", { href: `#/records?type=${encodeURIComponent(name)}` }, "Records"),
        isProduction() ? null : h("button", { type: "button", class: "quiet", onclick: () => go("schema", { edit: name }), "aria-label": `Edit ${name}` }, "Edit"),
        isProduction() || name === "Users" ? null : remove)),
    fields.length ? h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "Field"), h("th", {}, "Type"), h("th", {}, "Indexes"), h("th", {}, "Constraints"))),
      h("tbody", {}, fields.map(([fieldName, field]) => h("tr", {},
        h("td", {}, h("code", {}, fieldName)), h("td", {}, typeLabel(field.type)),
        h("td", {}, indexLabels(field.indexes).map((label) => h("span", { class: "tag" }, label))),
        h("td", {}, constraintLabels(field.constraints).map((label) => h("span", { class: "tag warn" }, label)))))))) :
      h("p", { class: "muted" }, "No fields."),
    h("h3", {}, "Grants"),
    h("p", {}, grants.map(([role, granted]) => h("span", { class: "tag good" }, `${roleLabel(role)}: ${permissions.filter((p) => granted.includes(p)).join(", ")}`))));
}

async function textTab(body) {
  const text = await admin.schemaText(state.container, state.environment);
  const editor = h("textarea", { class: "schema-text", id: "schema-text", spellcheck: "false", "aria-label": "Schema text", readOnly: isProduction() }, text);
  editor.value = text;
  const save = h("button", { type: "button", id: "save-schema-text" }, "Save development schema");
  save.addEventListener("click", () => run(save, async () => {
    const result = await saveConfirmingLosses((force) => admin.saveSchemaText(state.container, editor.value, force));
    showInfo(result.changes.length ? `Saved: ${result.changes.map((c) => c.description).join("; ")}` : "Saved; nothing changed.");
  }));
  replace(body,
    h("p", { class: "muted" }, "The schema in cktool's language, as `stratus schema export` writes it."),
    editor, isProduction() ? h("p", { class: "muted" }, "Production's schema is read-only here.") : h("div", { class: "row" }, save));
}

async function deployTab(body) {
  const preview = await admin.deployPreview(state.container);
  // When a change is refused, the server's own words say why (a dry run answers them).
  let refusal = null;
  if (!preview.deployable) {
    refusal = await admin.deploy(state.container, true).then(() => null, (error) => error);
  }
  const deploy = h("button", { type: "button", id: "deploy", disabled: !preview.deployable || preview.changes.length === 0 }, "Deploy to production");
  const result = h("div", { id: "deploy-result", role: "status" });
  deploy.addEventListener("click", () => run(deploy, async () => {
    try {
      const deployed = await admin.deploy(state.container);
      replace(result, h("p", { class: "notice info" }, `Deployed ${deployed.changes.length} change(s) to production.`));
      showInfo("The development schema is now in production.");
    } catch (error) {
      replace(result, h("p", { class: "notice error", role: "alert" }, h("span", { class: "code" }, error.serverErrorCode), error.reason));
      throw error;
    }
  }));
  replace(body,
    h("p", {}, "Changes deploying the development schema would make to production:"),
    preview.changes.length === 0 ? h("p", { class: "muted", id: "no-changes" }, "None: production matches development.") :
      h("ul", { id: "deploy-changes" }, preview.changes.map((change) => h("li", {},
        h("span", { class: change.additive ? "tag good" : "tag bad" }, change.additive ? "additive" : "refused"), " ", change.description))),
    preview.deployable ? null : h("div", { class: "notice error", role: "alert", id: "deploy-refusal" },
      h("p", {}, refusal ? [h("span", { class: "code" }, refusal.serverErrorCode), refusal.reason] : "This schema cannot be deployed.",
        h("br"), "Production only grows: undo the refused changes in development, then deploy.")),
    h("div", { class: "row" }, deploy), result);
}
