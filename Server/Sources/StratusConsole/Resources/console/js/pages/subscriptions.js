// Subscriptions: every user's, per database.
import { admin } from "../api.js";
import { h, replace, formatTime } from "../dom.js";
import { state, go } from "../app.js";

export async function subscriptionsPage(main, parameters) {
  const database = parameters.db === "private" ? "private" : "public";
  const { subscriptions } = await admin.subscriptions(state.container, state.environment, database);
  const picker = h("select", { id: "subscription-database" }, h("option", { value: "public" }, "Public"), h("option", { value: "private", selected: database === "private" }, "Private (all users)"));
  picker.addEventListener("change", () => go("subscriptions", { db: picker.value }));
  const rows = subscriptions.map(({ owner, databaseOwner, created, subscription }) => h("tr", {},
    h("td", {}, h("code", {}, subscription.subscriptionID)),
    h("td", {}, subscription.subscriptionType),
    h("td", {}, subscription.query?.recordType ?? subscription.zoneID?.zoneName ?? ""),
    h("td", {}, (subscription.firesOn ?? []).join(", "), subscription.firesOnce ? h("span", { class: "tag" }, "once") : null),
    h("td", { class: "hide-narrow" }, h("code", {}, owner), databaseOwner && databaseOwner !== owner ? h("div", { class: "muted" }, `in ${databaseOwner}'s database`) : null),
    h("td", { class: "hide-narrow" }, formatTime(created))));
  replace(main,
    h("h1", {}, `Subscriptions · ${state.environment}`),
    h("div", { class: "panel row" }, h("label", { for: "subscription-database" }, "Database", picker)),
    rows.length ? h("div", { class: "table-wrap" }, h("table", { id: "subscriptions-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "ID"), h("th", {}, "Type"), h("th", {}, "Record type / zone"), h("th", {}, "Fires on"), h("th", { class: "hide-narrow" }, "Subscriber"), h("th", { class: "hide-narrow" }, "Created"))),
      h("tbody", {}, rows))) : h("p", {}, "No subscriptions in this database."));
}
