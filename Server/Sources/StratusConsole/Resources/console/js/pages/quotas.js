// Quotas: what the chosen container's databases use against its storage quotas, and the quotas and request
// rates of this container and of every container (the defaults).
import { admin } from "../api.js";
import { h, replace, run, showInfo, formatTime, formatBytes } from "../dom.js";
import { state, go } from "../app.js";

/** The quotas, as the admin API names them, with what each is and whether it is a size. */
const quotaFields = [
  { key: "publicStorageBytes", label: "Public database storage", bytes: true },
  { key: "userStorageBytes", label: "Storage per user (private database)", bytes: true },
  { key: "userRequestsPerMinute", label: "Requests per user per minute", bytes: false },
  { key: "keyRequestsPerMinute", label: "Requests per server-to-server key per minute", bytes: false },
  { key: "addressRequestsPerMinute", label: "Requests per address per minute", bytes: false },
];

export async function quotasPage(main) {
  const [usage, stored] = await Promise.all([admin.usage(state.container, 50), admin.quotas()]);
  const defaults = stored.defaults ?? {};
  const own = stored.containers?.[state.container] ?? {};
  const databases = usage.databases.filter((database) => database.environment === state.environment);
  const measured = Math.max(0, ...usage.databases.map((database) => database.measured));
  replace(main,
    h("h1", {}, "Quotas"),
    h("p", { class: "muted" }, "Storage is measured every minute by default (", h("code", {}, "--usage-interval"),
      "); a database at its quota refuses saves and uploads with QUOTA_EXCEEDED, and a caller over a rate gets 429 THROTTLED."),
    h("section", { class: "panel stack" },
      h("h2", {}, `Storage of ${state.container} in ${state.environment}`),
      h("p", { class: "muted", id: "measured-at" }, measured ? `Measured ${formatTime(measured)}.` : "Not measured yet."),
      h("div", { class: "table-wrap" }, usageTable(databases)),
      h("div", { class: "row" }, h("button", { type: "button", id: "measure-now", class: "quiet", onclick: (event) => run(event.target, async () => {
        const { databases: count } = await admin.measureUsage();
        go("quotas");
        showInfo(`Measured ${count} databases holding data.`);
      }) }, "Measure now"))),
    quotaForm("container-quotas", `Quotas of ${state.container}`,
      "Empty: the default. \"none\": no limit, whatever the default. Sizes take KB, MB, GB or TB (1 KB = 1,024 bytes).", own, defaults,
      async (values) => { await admin.setQuotas(state.container, values); }),
    quotaForm("default-quotas", "Defaults for every container", "Empty: no limit.", defaults, null,
      async (values) => { await admin.setDefaultQuotas(values); }));
}

function usageTable(databases) {
  if (!databases.length) return h("p", {}, "No data in this environment yet.");
  return h("table", { id: "usage-table" },
    h("thead", {}, h("tr", {}, ["Database", "Records", "Record data", "Assets", "Total", "Quota", "Use"].map((name) => h("th", {}, name)))),
    h("tbody", {}, databases.map((database) => {
      const share = database.quotaBytes ? database.totalBytes / database.quotaBytes : null;
      return h("tr", { dataset: { owner: database.owner ?? "public" }, class: share !== null && share >= 1 ? "over-quota" : "" },
        h("td", {}, database.owner ? h("span", {}, "private of ", h("code", {}, database.owner)) : "public"),
        h("td", {}, String(database.records)), h("td", {}, formatBytes(database.recordBytes)), h("td", {}, formatBytes(database.assetBytes)),
        h("td", {}, formatBytes(database.totalBytes)), h("td", {}, database.quotaBytes ? formatBytes(database.quotaBytes) : "no limit"),
        h("td", {}, share === null ? "" : h("meter", { min: 0, max: 1, low: 0.8, high: 0.95, optimum: 0, value: Math.min(1, share),
          title: `${Math.round(share * 100)}%` })));
    })));
}

/** A form of the five quotas; `fallback` (the defaults) shows as placeholders, `save` gets the values to store. */
function quotaForm(id, title, hint, values, fallback, save) {
  const inputs = quotaFields.map((field) => {
    const placeholder = fallback ? (fallback[field.key] === undefined ? "no limit" : `default: ${describe(fallback[field.key], field.bytes)}`) : "no limit";
    return h("label", { for: `${id}-${field.key}` }, field.label,
      h("input", { id: `${id}-${field.key}`, name: field.key, placeholder, value: values[field.key] === undefined ? "" : describe(values[field.key], field.bytes) }));
  });
  const form = h("form", { id, class: "panel stack" }, h("h2", {}, title), h("p", { class: "muted" }, hint), inputs, h("button", { type: "submit" }, "Save"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form.querySelector("button[type=submit]"), async () => {
      const body = {};
      for (const field of quotaFields) {
        const value = parse(form.querySelector(`[name=${field.key}]`).value, field);
        if (value !== null) body[field.key] = value;
      }
      await save(body);
      go("quotas");
      showInfo(`Saved ${title.toLowerCase()}.`);
    });
  });
  return form;
}

/** The text of a quota input as a number: empty is not set (null), "none" is 0 (no limit). */
function parse(text, field) {
  const value = text.trim().toLowerCase().replace(/\s+/g, "");
  if (value === "") return null;
  if (value === "none" || value === "0") return 0;
  const match = /^(\d+(?:\.\d+)?)(tb|gb|mb|kb|b)?$/.exec(value);
  const factors = { tb: 2 ** 40, gb: 2 ** 30, mb: 2 ** 20, kb: 2 ** 10, b: 1 };
  if (!match || (!field.bytes && match[2])) {
    throw new Error(`${field.label}: "${text}" is not ${field.bytes ? "a size such as 500MB or 2GB" : "a whole number"}, "none" or empty.`);
  }
  return Math.round(Number(match[1]) * factors[match[2] ?? "b"]);
}

function describe(value, bytes) {
  if (value === 0) return "none";
  return bytes && value >= 1024 ? formatBytes(value).replace(" ", "") : String(value);
}
