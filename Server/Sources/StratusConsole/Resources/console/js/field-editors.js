// One control per field type. An editor is {element, read(): value | undefined, prepare?(): Promise}:
// read() answers the wire value of the field, or undefined when it has none; prepare() uploads a chosen file.
import { h, openDialog, run } from "./dom.js";
import { splitType } from "./schema-model.js";
import { uploadAsset, cloudKit } from "./api.js";

/**
 * An editor for a field of `type` ("STRING", "INT64_LIST"...) holding `value` (the wire value, or undefined).
 * `context` knows where the record lives, for uploads and the reference picker.
 */
export function fieldEditor(type, value, context) {
  const { scalar, isList } = splitType(type);
  return isList ? listEditor(scalar, value ?? [], context) : scalarEditor(scalar, value, context);
}

function scalarEditor(scalar, value, context) {
  switch (scalar) {
    case "STRING": return stringEditor(value, context);
    case "INT64": return numberEditor(value, "1", context);
    case "DOUBLE": return numberEditor(value, "any", context);
    case "BOOLEAN": return booleanEditor(value, context);
    case "TIMESTAMP": return timestampEditor(value, context);
    case "LOCALIZED_STRING": return localizedEditor(value, context);
    case "LOCATION": return locationEditor(value, context);
    case "REFERENCE": return referenceEditor(value, context);
    case "ASSETID": return assetEditor(value, context);
    case "BYTES": return bytesEditor(value, context);
    default: return jsonEditor(value, context);
  }
}

function stringEditor(value, { id }) {
  const long = typeof value === "string" && (value.length > 80 || value.includes("\n"));
  const input = long ? h("textarea", { id, rows: 4 }) : h("input", { id, type: "text" });
  input.value = value ?? "";
  return { element: input, read: () => (input.value === "" ? undefined : input.value) };
}

function numberEditor(value, step, { id }) {
  const input = h("input", { id, type: "number", step, value: value ?? "" });
  return {
    element: input,
    read: () => {
      if (input.value === "") return undefined;
      const number = Number(input.value);
      if (Number.isNaN(number) || (step === "1" && !Number.isInteger(number))) throw new Error(`${id}: ${input.value} is not a ${step === "1" ? "whole number" : "number"}`);
      return number;
    },
  };
}

function booleanEditor(value, { id }) {
  const box = h("input", { id, type: "checkbox", role: "switch", checked: value === true || value === 1 });
  let touched = false;
  box.addEventListener("change", () => { touched = true; });
  return {
    element: h("label", { class: "switch" }, box, h("span", {}, "on")),
    read: () => (value === undefined && !touched ? undefined : box.checked),
  };
}

/** Milliseconds since 1970 as the value of a datetime-local input, in local time. */
function localDateTime(milliseconds) {
  const date = new Date(milliseconds);
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function timestampEditor(value, { id }) {
  const input = h("input", { id, type: "datetime-local", step: "1", value: value === undefined ? "" : localDateTime(value) });
  return { element: input, read: () => (input.value === "" ? undefined : new Date(input.value).getTime()) };
}

function localizedEditor(value, { id }) {
  const rows = h("div", { class: "editor-list", id });
  const addRow = (language, text) => {
    const lang = h("input", { class: "lang", value: language, "aria-label": "Language", placeholder: "en", size: 6 });
    const input = h("input", { class: "text", value: text, "aria-label": `Text in ${language || "this language"}`, dataset: { language } });
    lang.addEventListener("input", () => { input.dataset.language = lang.value; input.setAttribute("aria-label", `Text in ${lang.value}`); });
    const row = h("div", { class: "lang-row" }, lang, input, h("button", { type: "button", class: "quiet", "aria-label": `Remove ${language || "language"}`, onclick: () => row.remove() }, "×"));
    rows.insertBefore(row, add);
    return lang;
  };
  const add = h("button", { type: "button", class: "quiet", onclick: () => addRow("", "").focus() }, "Add language");
  rows.append(add);
  const entries = Object.entries(value ?? {});
  for (const [language, text] of entries.length ? entries : [[navigator.language?.split("-")[0] || "en", ""]]) addRow(language, text);
  return {
    element: rows,
    read: () => {
      const texts = {};
      for (const row of rows.querySelectorAll(".lang-row")) {
        const [lang, text] = row.querySelectorAll("input");
        if (lang.value.trim() && text.value !== "") texts[lang.value.trim()] = text.value;
      }
      return Object.keys(texts).length ? texts : undefined;
    },
  };
}

function locationEditor(value, { id }) {
  const latitude = h("input", { id, type: "number", step: "any", min: -90, max: 90, placeholder: "latitude", "aria-label": "Latitude", value: value?.latitude ?? "" });
  const longitude = h("input", { type: "number", step: "any", min: -180, max: 180, placeholder: "longitude", "aria-label": "Longitude", value: value?.longitude ?? "" });
  return {
    element: h("div", { class: "editor-item" }, latitude, longitude),
    read: () => {
      if (latitude.value === "" && longitude.value === "") return undefined;
      if (latitude.value === "" || longitude.value === "") throw new Error(`${id}: a location needs both latitude and longitude`);
      return { ...(value ?? {}), latitude: Number(latitude.value), longitude: Number(longitude.value) };
    },
  };
}

function referenceEditor(value, context) {
  const name = h("input", { id: context.id, value: value?.recordName ?? "", placeholder: "recordName", "aria-label": "Referenced record name" });
  const action = h("select", { "aria-label": "When the referenced record is deleted" },
    [["NONE", "keep"], ["DELETE_SELF", "delete this record too"], ["VALIDATE", "must exist"]].map(([code, text]) =>
      h("option", { value: code, selected: (value?.action ?? "NONE") === code }, text)));
  const pick = h("button", { type: "button", class: "quiet" }, "Pick…");
  pick.addEventListener("click", () => pickRecord(context, (recordName) => { name.value = recordName; name.focus(); }));
  return {
    element: h("div", { class: "editor-item" }, name, action, pick),
    read: () => (name.value.trim() === "" ? undefined : { recordName: name.value.trim(), action: action.value, ...(value?.zoneID ? { zoneID: value.zoneID } : {}) }),
  };
}

/** A dialog listing records of a chosen type, to pick one for a reference. */
function pickRecord(context, picked) {
  const typeSelect = h("select", { "aria-label": "Record type" }, context.recordTypes.map((type) => h("option", { value: type }, type)));
  const prefix = h("input", { placeholder: "record name begins with", "aria-label": "Record name begins with" });
  const results = h("ul", { class: "editor-list" });
  const search = h("button", { type: "submit" }, "Search");
  const form = h("form", { class: "row" }, typeSelect, prefix, search);
  const dialog = openDialog("Pick a record", h("div", { class: "stack" }, form, results));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(search, async () => {
      const filterBy = prefix.value.trim() ? [{ fieldName: "___recordID", comparator: "BEGINS_WITH", fieldValue: { value: prefix.value.trim() } }] : [];
      const answer = await cloudKit(context.container, context.environment, context.database, "records/query", {
        user: context.user, json: { zoneID: context.zoneID, resultsLimit: 50, query: { recordType: typeSelect.value, filterBy } },
      });
      results.replaceChildren(...(answer.records ?? []).map((record) => h("li", {},
        h("button", { type: "button", class: "quiet", onclick: () => { picked(record.recordName); dialog.close(); } }, record.recordName))));
      if (!answer.records?.length) results.append(h("li", { class: "muted" }, "No records."));
    });
  });
  typeSelect.focus();
}

function assetEditor(value, context) {
  const preview = h("img", { class: "asset-preview", alt: `${context.id} preview`, hidden: !value?.downloadURL });
  if (value?.downloadURL) preview.src = value.downloadURL;
  const link = value?.downloadURL ? h("a", { href: value.downloadURL, target: "_blank", rel: "noopener" }, `Download (${value.size ?? "?"} bytes)`) : null;
  const file = h("input", { id: context.id, type: "file", "aria-label": `Upload a file for ${context.id}` });
  let removed = false;
  const remove = h("button", { type: "button", class: "quiet", hidden: !value, onclick: () => { removed = true; preview.hidden = true; remove.hidden = true; } }, "Remove");
  preview.addEventListener("error", () => { preview.hidden = true; });
  file.addEventListener("change", () => {
    const chosen = file.files[0];
    removed = false;
    if (chosen && chosen.type.startsWith("image/")) { preview.src = URL.createObjectURL(chosen); preview.hidden = false; }
    else preview.hidden = true;
  });
  let uploaded;
  return {
    element: h("div", { class: "stack" }, h("div", { class: "editor-item" }, file, link, remove), preview),
    prepare: async () => {
      const chosen = file.files[0];
      if (chosen && !uploaded) uploaded = await uploadAsset(context, { recordType: context.recordType, fieldName: context.fieldName, recordName: context.recordName() }, chosen);
    },
    read: () => {
      if (uploaded) return uploaded;
      if (removed || !value) return undefined;
      const { downloadURL, ...kept } = value;
      return kept;
    },
  };
}

function bytesEditor(value, { id }) {
  const input = h("textarea", { id, rows: 2, placeholder: "base64", spellcheck: "false" });
  input.value = value ?? "";
  return {
    element: input,
    read: () => {
      const text = input.value.trim();
      if (text === "") return undefined;
      if (!/^[A-Za-z0-9+/=\s_-]+$/.test(text)) throw new Error(`${id}: bytes are written in base64`);
      return text;
    },
  };
}

function jsonEditor(value, { id }) {
  const input = h("textarea", { id, rows: 2, spellcheck: "false" });
  input.value = value === undefined ? "" : JSON.stringify(value);
  return { element: input, read: () => (input.value.trim() === "" ? undefined : JSON.parse(input.value)) };
}

/** A list: one editor per item, with add, remove and move up. */
function listEditor(scalar, values, context) {
  const items = [];
  const container = h("div", { class: "editor-list", id: context.id });
  const add = h("button", { type: "button", class: "quiet" }, "Add item");
  const addItem = (value) => {
    const editor = scalarEditor(scalar, value, { ...context, id: `${context.id}[${items.length}]` });
    const item = { editor };
    const remove = h("button", { type: "button", class: "quiet", "aria-label": "Remove item", onclick: () => { items.splice(items.indexOf(item), 1); row.remove(); } }, "×");
    const up = h("button", { type: "button", class: "quiet", "aria-label": "Move up", onclick: () => {
      const index = items.indexOf(item);
      if (index > 0) { items.splice(index, 1); items.splice(index - 1, 0, item); container.insertBefore(row, row.previousElementSibling); }
    } }, "↑");
    const row = h("div", { class: "editor-item" }, editor.element, up, remove);
    container.insertBefore(row, add);
    items.push(item);
    return editor;
  };
  add.addEventListener("click", () => addItem(undefined).element.querySelector?.("input, textarea, select")?.focus?.());
  container.append(add);
  for (const value of values) addItem(value);
  return {
    element: container,
    prepare: async () => { for (const { editor } of items) await editor.prepare?.(); },
    read: () => {
      const list = items.map(({ editor }) => editor.read()).filter((value) => value !== undefined);
      return list.length ? list : undefined;
    },
  };
}

