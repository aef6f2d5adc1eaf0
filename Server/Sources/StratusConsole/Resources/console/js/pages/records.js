// Records: pick a database, zone and type, filter and sort, page through the results, and open one.
import { admin, cloudKit } from "../api.js";
import { h, replace, formatTime } from "../dom.js";
import { state, go } from "../app.js";
import { splitType, userFields } from "../schema-model.js";
import { recordEditor } from "./record-editor.js";

const comparators = {
  EQUALS: "=", NOT_EQUALS: "≠", LESS_THAN: "<", LESS_THAN_OR_EQUALS: "≤", GREATER_THAN: ">", GREATER_THAN_OR_EQUALS: "≥",
  BEGINS_WITH: "begins with", NOT_BEGINS_WITH: "does not begin with", IN: "is one of", NOT_IN: "is none of",
  CONTAINS_ALL_TOKENS: "has all words", CONTAINS_ANY_TOKENS: "has any word", NEAR: "within metres of",
  LIST_CONTAINS: "list contains", NOT_LIST_CONTAINS: "list lacks", LIST_CONTAINS_ANY: "list contains any of",
  NOT_LIST_CONTAINS_ANY: "list contains none of", LIST_CONTAINS_ALL: "list contains all of", NOT_LIST_CONTAINS_ALL: "list lacks one of",
  LIST_MEMBER_BEGINS_WITH: "an item begins with", NOT_LIST_MEMBER_BEGINS_WITH: "no item begins with",
};
const multiValued = new Set(["IN", "NOT_IN", "LIST_CONTAINS_ANY", "NOT_LIST_CONTAINS_ANY", "LIST_CONTAINS_ALL", "NOT_LIST_CONTAINS_ALL"]);
const systemFields = { ___recordID: "REFERENCE", ___createTime: "TIMESTAMP", ___modTime: "TIMESTAMP", ___createdBy: "REFERENCE" };
const pageSize = 20;

/** Filters and sort, kept while moving between the list and a record. */
const query = { filters: [], sortField: "", ascending: false, markers: [] };

/** Where the records page points: database, user, zone and type, from the URL. */
export function targetOf(parameters, schema) {
  const database = parameters.db === "private" ? "private" : "public";
  const types = Object.keys(schema.recordTypes).sort();
  return {
    container: state.container, environment: state.environment, database,
    user: parameters.user ?? "",
    zoneName: parameters.zone || "_defaultZone",
    /** Whether the URL named the zone; a user's database opened without one shows their first own zone. */
    zoneChosen: Boolean(parameters.zone),
    get zoneID() { return { zoneName: this.zoneName }; },
    recordType: types.includes(parameters.type) ? parameters.type : types.find((t) => t !== "Users") ?? types[0],
    recordTypes: types,
  };
}

export function recordsLink(target, extra = {}) {
  return { db: target.database, user: target.user, zone: target.zoneName, type: target.recordType, ...extra };
}

export async function recordsPage(main, parameters) {
  const schema = await admin.schema(state.container, state.environment);
  const target = targetOf(parameters, schema);
  if (parameters.record !== undefined || parameters.new !== undefined || parameters.duplicate !== undefined) {
    await recordEditor(main, target, schema, parameters);
    return;
  }
  const controls = await controlsForm(target, schema);
  const results = h("div", { id: "results" });
  replace(main, h("h1", {}, `Records · ${state.environment}`), controls, results);
  if (target.database === "private" && !target.user) {
    replace(results, h("p", { class: "muted" }, "Enter the userRecordName of the user whose private database to open (see Users)."));
    return;
  }
  if (!target.recordType) { replace(results, h("p", { class: "muted" }, "The schema has no record types yet.")); return; }
  await showResults(results, target, schema, parameters.page ? Number(parameters.page) : 0);
}

async function controlsForm(target, schema) {
  const database = h("select", { id: "database" }, h("option", { value: "public" }, "Public"), h("option", { value: "private", selected: target.database === "private" }, "Private (one user's)"));
  const user = h("input", { id: "private-user", value: target.user, placeholder: "_userRecordName", size: 20, hidden: target.database !== "private" });
  const userLabel = h("label", { for: "private-user", hidden: target.database !== "private" }, "User", user);
  database.addEventListener("change", () => { userLabel.hidden = database.value !== "private"; user.hidden = userLabel.hidden; });
  const zonesOf = async (databaseName, userName) => {
    if (databaseName === "private" && !userName) return [{ zoneID: { zoneName: "_defaultZone" } }];
    try {
      const listed = await cloudKit(target.container, target.environment, databaseName, "zones/list", { method: "GET", user: userName || undefined });
      return (listed.zones ?? []).filter((z) => z.zoneID);
    } catch { return [{ zoneID: { zoneName: "_defaultZone" } }]; /* the query shows why */ }
  };
  const zones = await zonesOf(target.database, target.user);
  // A user's private database opened without a zone shows their first own zone: their records are usually there.
  const ownZone = zones.find((z) => z.zoneID.zoneName !== "_defaultZone");
  if (target.database === "private" && !target.zoneChosen && ownZone) target.zoneName = ownZone.zoneID.zoneName;
  const zoneOptions = (list, selected) => list.map((z) => h("option", { value: z.zoneID.zoneName, selected: z.zoneID.zoneName === selected }, z.zoneID.zoneName));
  const zone = h("select", { id: "zone" }, zoneOptions(zones, target.zoneName));
  // Choosing another database or user lists that database's zones at once.
  const relist = async () => {
    const listed = await zonesOf(database.value, database.value === "private" ? user.value.trim() : "");
    const first = listed.find((z) => z.zoneID.zoneName !== "_defaultZone") ?? listed[0];
    zone.replaceChildren(...zoneOptions(listed, first?.zoneID.zoneName));
    zone.dataset.listedFor = `${database.value}/${user.value.trim()}`;
  };
  database.addEventListener("change", relist);
  user.addEventListener("change", relist);
  const type = h("select", { id: "record-type" }, target.recordTypes.map((name) => h("option", { value: name, selected: name === target.recordType }, name)));
  const fields = [...Object.keys(systemFields), ...userFields(schema.recordTypes[target.recordType] ?? {}).map(([name]) => name)];
  const filterRows = h("div", { class: "editor-list", id: "filters" });
  const addFilter = (filter = { fieldName: fields[fields.length > 4 ? 4 : 0], comparator: "EQUALS", text: "" }) => {
    const field = h("select", { "aria-label": "Filter field" }, fields.map((name) => h("option", { value: name, selected: name === filter.fieldName }, name)));
    const comparator = h("select", { "aria-label": "Comparator" }, Object.entries(comparators).map(([code, text]) => h("option", { value: code, selected: code === filter.comparator }, text)));
    const value = h("input", { "aria-label": "Filter value", value: filter.text, placeholder: "value", size: 16 });
    const row = h("div", { class: "editor-item filter" }, field, comparator, value,
      h("button", { type: "button", class: "quiet", "aria-label": "Remove filter", onclick: () => row.remove() }, "×"));
    row.read = () => ({ fieldName: field.value, comparator: comparator.value, text: value.value });
    filterRows.append(row);
    return field;
  };
  for (const filter of query.filters) addFilter(filter);
  const sortField = h("select", { id: "sort-field" }, h("option", { value: "" }, "default"), fields.map((name) => h("option", { value: name, selected: name === query.sortField }, name)));
  const direction = h("select", { id: "sort-direction", "aria-label": "Sort direction" }, h("option", { value: "desc" }, "descending"), h("option", { value: "asc", selected: query.ascending }, "ascending"));
  const submit = h("button", { type: "submit", id: "run-query" }, "Query");
  const form = h("form", { class: "panel stack", "aria-label": "Query" },
    h("div", { class: "row" },
      h("label", { for: "database" }, "Database", database), userLabel,
      h("label", { for: "zone" }, "Zone", zone), h("label", { for: "record-type" }, "Record type", type)),
    filterRows,
    h("div", { class: "row" },
      h("button", { type: "button", class: "quiet", id: "add-filter", onclick: () => addFilter().focus() }, "Add filter"),
      h("label", { for: "sort-field" }, "Sort by", sortField), h("label", { for: "sort-direction" }, "Order", direction),
      submit,
      h("button", { type: "button", class: "quiet", id: "new-record", onclick: () => go("records", recordsLink(target, { new: "1" })) }, "New record")));
  type.addEventListener("change", () => { query.filters = []; query.sortField = ""; });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    query.filters = [...filterRows.querySelectorAll(".filter")].map((row) => row.read());
    query.sortField = sortField.value;
    query.ascending = direction.value === "asc";
    query.markers = [];
    const chosenUser = database.value === "private" ? user.value.trim() : "";
    const sameDatabase = database.value === target.database && chosenUser === target.user;
    // The zone list follows the database and user chosen; a zone from another one's list is not carried over.
    const listedHere = zone.dataset.listedFor === `${database.value}/${chosenUser}`;
    go("records", { db: database.value, user: chosenUser, zone: sameDatabase || listedHere ? zone.value : "", type: type.value, page: "0" });
  });
  return form;
}

/** A filter's text as the wire value for the field's type. */
function filterValue(filter, fieldType) {
  const { scalar } = splitType(fieldType ?? "STRING");
  const one = (text) => {
    const trimmed = text.trim();
    switch (scalar) {
      case "INT64": case "DOUBLE": {
        const number = Number(trimmed);
        if (trimmed === "" || Number.isNaN(number)) throw new Error(`${filter.fieldName}: "${text}" is not a number`);
        return number;
      }
      case "BOOLEAN": return trimmed === "true" || trimmed === "1" || trimmed === "yes";
      case "TIMESTAMP": {
        const time = /^\d+$/.test(trimmed) ? Number(trimmed) : new Date(trimmed).getTime();
        if (Number.isNaN(time)) throw new Error(`${filter.fieldName}: "${text}" is not a date (try 2026-01-31T12:00)`);
        return time;
      }
      case "REFERENCE": return { recordName: trimmed };
      default: return trimmed;
    }
  };
  if (filter.comparator === "NEAR") {
    const [latitude, longitude, distance] = filter.text.split(",").map((part) => Number(part.trim()));
    if ([latitude, longitude, distance].some(Number.isNaN)) throw new Error(`${filter.fieldName}: write "latitude, longitude, metres"`);
    return { fieldValue: { value: { latitude, longitude } }, distance };
  }
  return { fieldValue: { value: multiValued.has(filter.comparator) ? filter.text.split(",").map(one) : one(filter.text) } };
}

async function showResults(results, target, schema, page) {
  const fieldTypes = { ...systemFields, ...Object.fromEntries(Object.entries(schema.recordTypes[target.recordType]?.fields ?? {}).map(([n, f]) => [n, f.type])) };
  const body = {
    zoneID: target.zoneID, resultsLimit: pageSize,
    query: {
      recordType: target.recordType,
      filterBy: query.filters.map((filter) => ({ fieldName: filter.fieldName, comparator: filter.comparator, ...filterValue(filter, fieldTypes[filter.fieldName]) })),
      sortBy: query.sortField ? [{ fieldName: query.sortField, ascending: query.ascending }] : [],
    },
  };
  if (page > 0 && query.markers[page - 1]) body.continuationMarker = query.markers[page - 1];
  const answer = await cloudKit(target.container, target.environment, target.database, "records/query", { json: body, user: target.user || undefined });
  if (answer.continuationMarker) query.markers[page] = answer.continuationMarker;
  const columns = summaryColumns(schema.recordTypes[target.recordType] ?? {});
  const rows = (answer.records ?? []).map((record) => h("tr", {},
    h("td", {}, h("a", { href: "#/records?" + new URLSearchParams(recordsLink(target, { record: record.recordName })) }, record.recordName)),
    columns.map((name) => h("td", { class: "hide-narrow" }, summary(record.fields?.[name]))),
    h("td", { class: "hide-narrow" }, formatTime(record.modified?.timestamp))));
  replace(results,
    h("p", { class: "muted", id: "result-count" }, `${rows.length} record${rows.length === 1 ? "" : "s"} on page ${page + 1}`),
    rows.length ? h("div", { class: "table-wrap" }, h("table", { id: "records-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Record name"), columns.map((name) => h("th", { class: "hide-narrow" }, name)), h("th", { class: "hide-narrow" }, "Modified"))),
      h("tbody", {}, rows))) : h("p", {}, "No records match."),
    h("div", { class: "row" },
      page > 0 ? h("button", { type: "button", class: "quiet", onclick: () => go("records", recordsLink(target, { page: String(page - 1) })) }, "Previous page") : null,
      answer.continuationMarker ? h("button", { type: "button", class: "quiet", id: "next-page", onclick: () => go("records", recordsLink(target, { page: String(page + 1) })) }, "Next page") : null));
}

/** Up to four fields to show in the results: the sort field, then text before flags, numbers and the rest. */
function summaryColumns(recordType) {
  const order = ["STRING", "LOCALIZED_STRING", "BOOLEAN", "INT64", "DOUBLE", "TIMESTAMP", "REFERENCE", "ASSETID", "LOCATION"];
  const rank = ([name, field]) => (name === query.sortField ? -1 : order.indexOf(splitType(field.type).scalar) + (splitType(field.type).isList ? 20 : 0));
  return userFields(recordType).sort((a, b) => rank(a) - rank(b) || a[0].localeCompare(b[0])).map(([name]) => name).slice(0, 4);
}

/** A short text for a field value in the results table. */
function summary(field) {
  if (!field) return "";
  const value = field.value;
  switch (splitType(field.type ?? "").scalar) {
    case "LOCALIZED_STRING": return Object.entries(value).map(([lang, text]) => `${lang}: ${text}`).join(" · ");
    case "TIMESTAMP": return formatTime(value);
    case "ASSETID": return value?.downloadURL ? h("img", { src: value.downloadURL, alt: "", class: "asset-thumb" }) : "asset";
    case "REFERENCE": return `→ ${value.recordName}`;
    case "LOCATION": return `${value.latitude}, ${value.longitude}`;
    default: return typeof value === "object" ? JSON.stringify(value) : String(value);
  }
}

