// One record: every field in a control fitting its type; save, duplicate and delete. A stale change tag
// is shown as a conflict and nothing is overwritten.
import { cloudKit, ServerError } from "../api.js";
import { h, replace, run, showInfo, formatTime } from "../dom.js";
import { go } from "../app.js";
import { userFields, typeLabel, splitType } from "../schema-model.js";
import { fieldEditor } from "../field-editors.js";
import { recordsLink } from "./records.js";

export async function recordEditor(main, target, schema, parameters) {
  const call = (operation, json) => cloudKit(target.container, target.environment, target.database, operation, { json, user: target.user || undefined });
  const sourceName = parameters.record ?? parameters.duplicate;
  let record = null;
  if (sourceName) {
    const answer = await call("records/lookup", { zoneID: target.zoneID, records: [{ recordName: sourceName }] });
    record = answer.records?.[0];
    if (!record || record.serverErrorCode) throw new ServerError(404, record ?? { serverErrorCode: "NOT_FOUND", reason: `record ${sourceName} does not exist` });
  }
  if (parameters.duplicate !== undefined && record) await shareFilesWithCopy(record, call, target);
  const isNew = parameters.record === undefined;
  const recordType = record?.recordType ?? target.recordType;
  const typeSchema = schema.recordTypes[recordType] ?? { fields: {} };
  const nameInput = h("input", { id: "record-name", value: isNew ? crypto.randomUUID() : record.recordName, readOnly: !isNew, required: true });

  // The schema's fields, then any the record holds that the schema lacks (kept, never dropped).
  const fields = userFields(typeSchema).map(([name, field]) => [name, field.type]);
  for (const [name, value] of Object.entries(record?.fields ?? {})) {
    if (!fields.some(([known]) => known === name)) fields.push([name, value.type ?? "STRING"]);
  }
  const context = {
    container: target.container, environment: target.environment, database: target.database, user: target.user || undefined,
    zoneID: target.zoneID, recordType, recordTypes: target.recordTypes, recordName: () => nameInput.value.trim(),
  };
  const editors = fields.map(([name, type]) => [name, type, fieldEditor(type, record?.fields?.[name]?.value, { ...context, id: name, fieldName: name })]);
  const status = h("div", { id: "record-status", role: "alert" });
  const save = h("button", { type: "submit", id: "save-record" }, isNew ? "Create record" : "Save changes");
  const form = h("form", { class: "panel stack", "aria-labelledby": "record-title" },
    h("div", { class: "fields" },
      h("label", { class: "field-label", for: "record-name" }, "Record name"), nameInput,
      editors.map(([name, type, editor]) => [
        h("label", { class: "field-label", for: name }, name, h("small", {}, typeLabel(type))), editor.element,
      ])),
    status,
    h("div", { class: "row" }, save,
      isNew ? null : h("button", { type: "button", class: "quiet", id: "duplicate-record", onclick: () => go("records", recordsLink(target, { duplicate: record.recordName })) }, "Duplicate"),
      isNew ? null : deleteButton(),
      h("button", { type: "button", class: "quiet", onclick: () => go("records", recordsLink(target)) }, "Back to the list")));

  function deleteButton() {
    const button = h("button", { type: "button", class: "danger", id: "delete-record" }, "Delete");
    button.addEventListener("click", () => {
      if (!confirm(`Delete ${record.recordName}?`)) return;
      run(button, async () => {
        const answer = await call("records/modify", { zoneID: target.zoneID, operations: [{ operationType: "delete", record: { recordName: record.recordName, recordChangeTag: record.recordChangeTag } }] });
        const result = answer.records?.[0];
        if (result?.serverErrorCode) return showConflictOr(result);
        showInfo(`${record.recordName} deleted.`);
        go("records", recordsLink(target));
      });
    });
    return button;
  }

  /** Shows a failed save: a conflict offers to reload; anything else is shown as the server said it. */
  function showConflictOr(result) {
    if (result.serverErrorCode === "CONFLICT") {
      replace(status, h("div", { class: "notice error", id: "conflict" },
        h("p", {}, h("span", { class: "code" }, "CONFLICT"),
          "Someone changed this record since you opened it, so your changes were not saved. Reload to see the current version, then make your changes again."),
        h("button", { type: "button", onclick: () => go("records", recordsLink(target, { record: record.recordName, reload: String(Date.now()) })) }, "Reload")));
    } else {
      replace(status, h("p", { class: "notice error" }, h("span", { class: "code" }, result.serverErrorCode), result.reason));
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    replace(status);
    run(save, async () => {
      const values = {};
      try {
        for (const [name, type, editor] of editors) {
          await editor.prepare?.();
          const value = editor.read();
          if (value !== undefined) values[name] = { value, type };
        }
      } catch (error) {
        replace(status, h("p", { class: "notice error" }, error.reason ?? error.message));
        return;
      }
      const saved = { recordName: nameInput.value.trim(), recordType, fields: values };
      if (!isNew) saved.recordChangeTag = record.recordChangeTag;
      const answer = await call("records/modify", { zoneID: target.zoneID, operations: [{ operationType: isNew ? "create" : "replace", record: saved }] });
      const result = answer.records?.[0];
      if (result?.serverErrorCode) return showConflictOr(result);
      showInfo(`${result.recordName} saved.`);
      go("records", recordsLink(target, { record: result.recordName }));
    });
  });

  replace(main,
    h("h1", { id: "record-title" }, isNew ? `New ${recordType}` : `${recordType} ${record.recordName}`),
    isNew ? null : h("p", { class: "muted" }, `Created ${formatTime(record.created?.timestamp)} by ${record.created?.userRecordName ?? "?"}; modified ${formatTime(record.modified?.timestamp)}. Change tag `, h("code", {}, record.recordChangeTag)),
    form);
}

/**
 * Gives a copy its source's files: each asset value of the source gets a fresh receipt
 * (`assets/rereference`), so the new record takes the same files without uploading them again.
 */
async function shareFilesWithCopy(record, call, target) {
  const assetFields = Object.entries(record.fields ?? {}).filter(([, field]) => splitType(field.type ?? "").scalar === "ASSETID");
  if (assetFields.length === 0) return;
  const answer = await call("assets/rereference", {
    zoneID: target.zoneID, assets: assetFields.map(([fieldName]) => ({ recordName: record.recordName, fieldName })),
  });
  for (const item of answer.assets ?? []) {
    if (item.serverErrorCode) { delete record.fields[item.fieldName]; continue; }
    const original = record.fields[item.fieldName].value;
    record.fields[item.fieldName].value = Array.isArray(item.value)
      ? item.value.map((fresh, index) => ({ ...original[index], ...fresh }))
      : { ...original, ...item.value };
  }
}
