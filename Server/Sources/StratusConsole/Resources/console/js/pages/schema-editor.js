// The form that adds or edits one record type: fields with their types, indexes and constraints, and grants.
import { h, run } from "../dom.js";
import { go } from "../app.js";
import { scalarTypes, typeNames, indexFlags, permissions, builtInRoles, roleLabel, splitType, newField, parseValue, userFields } from "../schema-model.js";

/** A form for the type `name` of `schema` ("" for a new type); `save` gets the whole changed schema. */
export function typeEditor(schema, name, save) {
  const isNew = name === "";
  const original = isNew ? { name: "", fields: {}, grants: { _world: ["READ"], _icloud: ["CREATE"], _creator: ["WRITE"] } } : schema.recordTypes[name];
  const systemFields = Object.entries(original.fields ?? {}).filter(([field]) => field.startsWith("___"));
  const typeName = h("input", { id: "type-name", value: original.name, required: true, readOnly: !isNew, pattern: "[A-Za-z][A-Za-z0-9_]*", autocomplete: "off" });
  const fieldRows = h("tbody", {});
  const rows = [];
  const addRow = (fieldName, field) => {
    const row = fieldRow(fieldName, field, () => { rows.splice(rows.indexOf(row), 1); row.element.remove(); });
    rows.push(row);
    fieldRows.append(row.element);
    return row;
  };
  for (const [fieldName, field] of userFields(original)) addRow(fieldName, field);
  const addField = h("button", { type: "button", id: "add-field", class: "quiet" }, "Add field");
  addField.addEventListener("click", () => addRow("", newField()).focus());

  const roles = [...Object.keys(builtInRoles), ...(schema.roles ?? [])];
  const grantBoxes = {};
  const grantRows = roles.map((role) => h("tr", {}, h("th", { scope: "row" }, roleLabel(role)),
    permissions.map((permission) => {
      const box = h("input", { type: "checkbox", "aria-label": `${roleLabel(role)} may ${permission.toLowerCase()}`, checked: (original.grants?.[role] ?? []).includes(permission) });
      grantBoxes[`${role}|${permission}`] = box;
      return h("td", {}, box);
    })));

  const error = h("p", { class: "error-text", role: "alert" });
  const submit = h("button", { type: "submit", id: "save-type" }, isNew ? "Create type" : "Save type");
  const form = h("form", { class: "panel stack", "aria-labelledby": "editor-title" },
    h("h2", { id: "editor-title" }, isNew ? "New record type" : `Edit ${name}`),
    h("label", { for: "type-name" }, "Name", typeName),
    h("h3", {}, "Fields"),
    h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Type"), h("th", {}, "Indexes"), h("th", {}, "Constraints"), h("th", {}, ""))),
      fieldRows)),
    h("div", {}, addField),
    h("h3", {}, "Grants"),
    h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Role"), permissions.map((p) => h("th", {}, p.toLowerCase())))), h("tbody", {}, grantRows))),
    error,
    h("div", { class: "row" }, submit, h("button", { type: "button", class: "quiet", onclick: () => go("schema") }, "Cancel")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    error.textContent = "";
    const recordTypeName = typeName.value.trim();
    if (isNew && schema.recordTypes[recordTypeName]) { error.textContent = `A type named ${recordTypeName} exists already.`; return; }
    const fields = Object.fromEntries(systemFields);
    for (const row of rows) {
      const fieldName = row.name();
      if (!fieldName) { error.textContent = "Every field needs a name."; return; }
      if (fields[fieldName]) { error.textContent = `Two fields are named ${fieldName}.`; return; }
      fields[fieldName] = row.value();
    }
    const grants = {};
    for (const role of roles) {
      const granted = permissions.filter((permission) => grantBoxes[`${role}|${permission}`].checked);
      if (granted.length) grants[role] = granted;
    }
    const changed = structuredClone(schema);
    changed.recordTypes[recordTypeName] = { ...original, name: recordTypeName, fields, grants };
    run(submit, () => save(changed));
  });
  setTimeout(() => (isNew ? typeName : rows[0]?.nameInput ?? addField).focus(), 0);
  return form;
}

/** One field's row: name, type, list, indexes and constraints. */
function fieldRow(fieldName, field, remove) {
  const { scalar, isList } = splitType(field.type);
  const existing = fieldName !== "";
  const nameInput = h("input", { value: fieldName, placeholder: "fieldName", "aria-label": "Field name", required: true, pattern: "[A-Za-z][A-Za-z0-9_]*", size: 14, readOnly: existing });
  const typeSelect = h("select", { "aria-label": "Field type", disabled: existing }, scalarTypes.map((type) => h("option", { value: type, selected: type === scalar }, typeNames[type])));
  const list = h("input", { type: "checkbox", checked: isList, disabled: existing });
  const indexBoxes = Object.entries(indexFlags).map(([label, bit]) => [bit, h("input", { type: "checkbox", checked: (field.indexes & bit) !== 0, "aria-label": label })]);
  const constraints = field.constraints ?? {};
  const required = h("input", { type: "checkbox", checked: !!constraints.isRequired });
  const notEmpty = h("input", { type: "checkbox", checked: !!constraints.isNotEmpty });
  const uniqueMode = h("select", { "aria-label": "Unique" },
    h("option", { value: "no" }, "not unique"),
    h("option", { value: "yes", selected: !!constraints.isUnique }, "unique"),
    h("option", { value: "where", selected: !!constraints.uniqueWhere }, "unique where…"));
  const whereField = h("input", { "aria-label": "Unique where field", size: 10, value: constraints.uniqueWhere?.field ?? "", placeholder: "field" });
  const whereValue = h("input", { "aria-label": "Unique where value", size: 6, value: constraints.uniqueWhere ? String(constraints.uniqueWhere.value) : "", placeholder: "true" });
  const where = h("span", { class: "editor-item" }, whereField, "=", whereValue);
  const showWhere = () => {
    where.hidden = uniqueMode.value !== "where";
    if (!where.hidden && !whereField.value) whereField.value = nameInput.value;
    if (!where.hidden && !whereValue.value) whereValue.value = typeSelect.value === "BOOLEAN" ? "true" : "";
  };
  uniqueMode.addEventListener("change", showWhere);
  showWhere();
  const allowed = h("input", { "aria-label": "Allowed values", size: 14, placeholder: "allowed: a, b, c", value: (constraints.allowedValues ?? []).join(", ") });
  const minimum = h("input", { type: "number", step: "any", "aria-label": "Minimum", placeholder: "min", value: constraints.minimum ?? "", class: "narrow" });
  const maximum = h("input", { type: "number", step: "any", "aria-label": "Maximum", placeholder: "max", value: constraints.maximum ?? "", class: "narrow" });
  const element = h("tr", {},
    h("td", {}, nameInput),
    h("td", {}, h("div", { class: "stack" }, typeSelect, h("label", { class: "switch" }, list, "list"))),
    h("td", {}, h("div", { class: "stack" }, indexBoxes.map(([, box]) => h("label", { class: "switch" }, box, box.getAttribute("aria-label").toLowerCase())))),
    h("td", {}, h("div", { class: "stack" },
      h("label", { class: "switch" }, required, "required"), h("label", { class: "switch" }, notEmpty, "not empty"),
      uniqueMode, where, allowed, h("span", { class: "editor-item" }, minimum, maximum))),
    h("td", {}, h("button", { type: "button", class: "quiet", "aria-label": `Remove field ${fieldName}`, onclick: remove }, "Remove")));
  return {
    element, nameInput,
    focus: () => nameInput.focus(),
    name: () => nameInput.value.trim(),
    value: () => {
      const result = { ...field, type: typeSelect.value + (list.checked ? "_LIST" : ""), indexes: indexBoxes.reduce((sum, [bit, box]) => sum + (box.checked ? bit : 0), 0) };
      const next = { isRequired: required.checked, isNotEmpty: notEmpty.checked, isUnique: uniqueMode.value === "yes" };
      if (uniqueMode.value === "where") next.uniqueWhere = { field: whereField.value.trim() || nameInput.value.trim(), value: parseValue(whereValue.value) };
      if (allowed.value.trim()) next.allowedValues = allowed.value.split(",").map((v) => parseValue(v));
      if (minimum.value !== "") next.minimum = Number(minimum.value);
      if (maximum.value !== "") next.maximum = Number(maximum.value);
      result.constraints = next;
      return result;
    },
  };
}
