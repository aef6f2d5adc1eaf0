// One user, for support: their account, sessions, zones with records by type, subscriptions, and their latest
// requests and syncs (from the request log).
import { admin } from "../api.js";
import { h, replace, formatTime } from "../dom.js";
import { state } from "../app.js";
import { displayName } from "./users.js";

export async function userPage(main, parameters) {
  const user = parameters.user ?? "";
  const overview = await admin.userOverview(state.container, state.environment, user);
  const account = overview.account;
  const ways = [account.hasPassword ? "password" : null, account.passkeys ? `${account.passkeys} passkeys` : null,
    account.totpEnabled ? "authenticator app" : null, ...account.identities].filter(Boolean);
  replace(main,
    h("h1", {}, displayName(account)),
    h("p", { class: "muted" }, h("code", {}, account.userRecordName), ` in ${state.container}, ${state.environment}. `,
      h("a", { href: `#/records?${new URLSearchParams({ db: "private", user: account.userRecordName })}` }, "Browse their private records"), " · ",
      h("a", { href: `#/telemetry?${new URLSearchParams({ range: "day", user: account.userRecordName })}` }, "All their requests")),
    h("section", { class: "panel", id: "user-account" }, h("h2", {}, "Account"), h("dl", { class: "facts" },
      fact("Signed up", formatTime(account.created)), fact("Signs in with", ways.join(", ") || "nothing yet (anonymous)"),
      fact("Address", account.emailAddress ? `${account.emailAddress}${account.emailVerified ? "" : " (unverified)"}` : "–"),
      fact("State", account.disabled ? "disabled" : "active"), fact("Roles", account.roles.join(", ") || "none"),
      fact("Records", `${account.publicRecords} public, ${account.privateRecords} private`))),
    h("section", { class: "panel", id: "user-sessions" }, h("h2", {}, `Sessions (${overview.sessions.length})`), table(
      ["Device", "Signed in", "Last used", "Expires"],
      overview.sessions.map((session) => [session.deviceName ?? "–", formatTime(session.created), formatTime(session.lastUsed), formatTime(session.expires)]))),
    h("section", { class: "panel", id: "user-zones" }, h("h2", {}, "Private zones"), table(
      ["Zone", "Records", "By type", "Last change"],
      overview.zones.map((zone) => [zone.zoneName, String(zone.records),
        Object.entries(zone.recordTypes).map(([type, count]) => `${type} ${count}`).join(", "), formatTime(zone.lastChange)]))),
    h("section", { class: "panel", id: "user-subscriptions" }, h("h2", {}, `Subscriptions (${overview.subscriptions.length})`), table(
      ["ID", "Database", "Kind", "Created"],
      overview.subscriptions.map((entry) => [entry.subscription.subscriptionID, entry.database, entry.subscription.subscriptionType, formatTime(entry.created)]))),
    h("section", { class: "panel", id: "user-sync" }, h("h2", {}, "Sync activity"), requests(overview.syncRequests)),
    h("section", { class: "panel", id: "user-requests" }, h("h2", {}, "Recent requests"), requests(overview.recentRequests)));
}

function fact(term, value) {
  return [h("dt", {}, term), h("dd", {}, value)];
}

function table(headings, rows) {
  if (!rows.length) return h("p", { class: "muted" }, "None.");
  return h("div", { class: "table-wrap" }, h("table", {},
    h("thead", {}, h("tr", {}, headings.map((heading) => h("th", {}, heading)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell)))))));
}

function requests(entries) {
  return table(["Time", "Request", "Status", "Latency"], entries.map((entry) => [
    formatTime(entry.time), h("code", {}, `${entry.method} ${entry.operation}`),
    h("span", { class: `status-${String(entry.status)[0]}` }, String(entry.status), entry.errorCode ? ` ${entry.errorCode}` : ""),
    `${entry.ms.toFixed(1)} ms`]));
}
