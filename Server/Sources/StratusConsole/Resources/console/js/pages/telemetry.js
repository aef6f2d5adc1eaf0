// Telemetry: the chosen container environment's requests, errors by code, latency, notifications, active users
// and storage over an hour, a day, a week or a month, from every node; and the request log, searched by user,
// record type, error code and time.
import { admin } from "../api.js";
import { h, replace, run, formatTime, formatBytes } from "../dom.js";
import { state, go } from "../app.js";
import { barChart, lineChart } from "../charts.js";

const ranges = { hour: "Hour", day: "Day", week: "Week", month: "30 days" };

export async function telemetryPage(main, parameters) {
  const range = ranges[parameters.range] ? parameters.range : "day";
  const telemetry = await admin.telemetry(state.container, state.environment, range);
  const formatX = range === "hour" || range === "day"
    ? (time) => new Date(time).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : (time) => new Date(time).toLocaleDateString([], { month: "short", day: "numeric" });
  const points = telemetry.points.map((point) => ({ time: point.start, point }));
  const codes = [...new Set(telemetry.points.flatMap((point) => Object.keys(point.errorsByCode)))].sort();
  const totals = telemetry.totals;
  const logView = h("div", { id: "request-log" });
  replace(main,
    h("h1", {}, "Telemetry"),
    h("p", { class: "muted" }, "Requests to ", h("code", {}, state.container), ` in ${state.environment}, from every node, counted per minute and kept 30 days.`),
    h("div", { class: "row", role: "group", "aria-label": "Range" }, Object.entries(ranges).map(([name, title]) => h("button", {
      type: "button", class: "quiet range", "aria-pressed": String(name === range), dataset: { range: name },
      onclick: () => go("telemetry", { ...parameters, range: name }),
    }, title))),
    h("div", { class: "counters", id: "telemetry-totals" },
      counter("Requests", totals.requests), counter("Errors", totals.errors),
      counter("p50 latency", totals.p50Ms === undefined ? "–" : `${totals.p50Ms.toFixed(1)} ms`),
      counter("p99 latency", totals.p99Ms === undefined ? "–" : `${totals.p99Ms.toFixed(1)} ms`),
      counter("Notifications", totals.notifications)),
    h("div", { class: "charts" },
      section("Requests", barChart({
        label: "Requests per point, errors in red", formatX,
        points: points.map(({ time, point }) => ({ time, values: { answered: point.requests - point.errors, errors: point.errors } })),
        series: [{ name: "answered", className: "series-1" }, { name: "errors", className: "series-errors" }],
      })),
      section("Errors by code", codes.length ? barChart({
        label: "Errors by code", formatX,
        points: points.map(({ time, point }) => ({ time, values: point.errorsByCode })),
        series: codes.map((code, index) => ({ name: code, className: `series-${(index % 6) + 1}` })), legend: true,
      }) : h("p", { class: "muted" }, "No errors in this range.")),
      section("Latency", lineChart({
        label: "Latency, p50 and p99, in milliseconds", formatX, formatY: (value) => `${Math.round(value * 10) / 10} ms`,
        points: points.map(({ time, point }) => ({ time, values: { p50: point.p50Ms, p99: point.p99Ms } })),
        series: [{ name: "p50", className: "series-1" }, { name: "p99", className: "series-2" }],
      })),
      section("Notifications", barChart({
        label: "Notifications made for subscriptions", formatX,
        points: points.map(({ time, point }) => ({ time, values: { notifications: point.notifications } })),
        series: [{ name: "notifications", className: "series-3" }],
      })),
      section("Active users per day", barChart({
        label: "Users who sent requests, per day", formatX: (time) => new Date(time).toLocaleDateString([], { month: "short", day: "numeric" }),
        points: telemetry.activeUsers.map((day) => ({ time: day.day, values: { users: day.users } })),
        series: [{ name: "users", className: "series-4" }],
      })),
      section("Storage", telemetry.storage.length ? lineChart({
        label: "Storage of the public and the private databases", formatX, formatY: formatBytes,
        points: telemetry.storage.map((sample) => ({ time: sample.time, values: { public: sample.publicBytes, private: sample.privateBytes } })),
        series: [{ name: "public", className: "series-1" }, { name: "private", className: "series-5" }],
      }) : h("p", { class: "muted" }, "Not measured in this range yet."))),
    h("h2", {}, "Request log"),
    logForm(parameters, logView), logView);
  await showLog(logView, parameters);
}

function section(title, content) {
  return h("section", { class: "panel" }, h("h2", {}, title), content);
}

function counter(title, value) {
  return h("div", { class: "counter" }, h("span", { class: "muted" }, title), h("strong", {}, String(value)));
}

/** The search form; a search is kept in the address, so that it can be shared and reloaded. */
function logForm(parameters, logView) {
  const field = (name, label, placeholder, type = "text") =>
    h("label", { for: `log-${name}` }, label, h("input", { id: `log-${name}`, name, type, placeholder, value: parameters[name] ?? "" }));
  const form = h("form", { id: "log-form", class: "row" },
    field("user", "User", "_a1b2…"), field("recordType", "Record type", "Message"), field("errorCode", "Error code (* for any)", "CONFLICT"),
    field("from", "From", "", "datetime-local"), field("to", "To", "", "datetime-local"),
    h("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const search = {};
    for (const name of ["user", "recordType", "errorCode", "from", "to"]) {
      const value = form.querySelector(`[name=${name}]`).value.trim();
      if (value) search[name] = value;
    }
    const range = parameters.range;
    history.replaceState(null, "", `#/telemetry?${new URLSearchParams({ ...(range ? { range } : {}), ...search })}`);
    run(form.querySelector("button[type=submit]"), () => showLog(logView, search));
  });
  return form;
}

async function showLog(logView, search, before) {
  const query = { environment: state.environment, limit: 50 };
  for (const name of ["user", "recordType", "errorCode"]) if (search[name]) query[name] = search[name];
  for (const name of ["from", "to"]) if (search[name]) query[name] = String(new Date(search[name]).getTime());
  if (before) query.before = String(before);
  const { entries, moreComing } = await admin.requestLog(state.container, query);
  const rows = entries.map((entry) => h("tr", { dataset: { id: String(entry.id) } },
    h("td", {}, formatTime(entry.time)),
    h("td", {}, h("code", {}, `${entry.method} ${entry.operation}`)),
    h("td", { class: `status-${String(entry.status)[0]}` }, String(entry.status), entry.errorCode ? h("span", { class: "tag bad" }, entry.errorCode) : null),
    h("td", {}, entry.user ? h("a", { href: `#/user?user=${encodeURIComponent(entry.user)}` }, entry.user) : h("span", { class: "muted" }, "–")),
    h("td", {}, entry.recordTypes.join(", ")),
    h("td", {}, `${entry.ms.toFixed(1)} ms`),
    h("td", { class: "muted" }, `${entry.node} · ${entry.address}`)));
  const table = logView.querySelector("tbody");
  if (before && table) {
    table.append(...rows);
  } else {
    replace(logView, entries.length === 0 ? h("p", { class: "muted" }, "No logged request matches.") : h("div", { class: "table-wrap" }, h("table", { id: "log-table" },
      h("thead", {}, h("tr", {}, ["Time", "Request", "Status", "User", "Record types", "Latency", "Node · address"].map((name) => h("th", {}, name)))),
      h("tbody", {}, rows))));
  }
  logView.querySelector("#older-log")?.remove();
  if (moreComing) {
    const last = entries[entries.length - 1].id;
    logView.append(h("button", { type: "button", class: "quiet", id: "older-log", onclick: (event) => run(event.target, () => showLog(logView, search, last)) }, "Older"));
  }
}
