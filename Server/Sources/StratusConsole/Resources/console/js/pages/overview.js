// Overview: the server at a glance, where the console opens. Today's requests and errors, users active today,
// storage, the last backup, webhooks that fail and mail waiting; then each container's figures. Refreshed every
// 15 seconds while shown.
import { admin } from "../api.js";
import { h, replace, refreshEvery, formatBytes, formatTime } from "../dom.js";
import { state, chooseContainer, go } from "../app.js";

export async function overviewPage(main) {
  const tiles = h("div", { class: "tiles", id: "overview-tiles" });
  const attention = h("div", { id: "overview-attention" });
  const table = h("div", { id: "overview-containers" });
  replace(main, h("h1", {}, "Overview"), tiles, attention, h("h2", {}, "Containers today"), table);

  const refresh = async () => {
    const overview = await admin.overview();
    replace(tiles,
      tile("requests", "Requests today", overview.requestsToday.toLocaleString()),
      tile("errors", "Errors today", overview.errorsToday.toLocaleString(), overview.errorsToday > 0 ? "warn" : "good",
        overview.requestsToday ? `${percent(overview.errorsToday, overview.requestsToday)} of requests` : null),
      tile("active-users", "Active users today", overview.activeUsersToday.toLocaleString()),
      tile("storage", "Storage", formatBytes(overview.publicBytes + overview.privateBytes), null,
        overview.storageMeasuredAt ? `public ${formatBytes(overview.publicBytes)} · private ${formatBytes(overview.privateBytes)}, measured ${formatTime(overview.storageMeasuredAt)}`
          : "not measured yet"),
      backupTile(overview.backups),
      tile("webhooks", "Failing webhooks", String(overview.failingWebhooks.length), overview.failingWebhooks.length ? "bad" : "good"),
      tile("mail", "Mail waiting", String(overview.mailWaiting), overview.mailWaiting && !overview.smtpConfigured ? "warn" : null,
        overview.smtpConfigured ? null : "no SMTP server is set (--smtp-url): mail waits"));
    replace(attention, overview.failingWebhooks.length === 0 ? null : h("section", { class: "notice-list" },
      h("h2", {}, "Webhooks that fail"),
      h("ul", {}, overview.failingWebhooks.map((hook) => h("li", {},
        h("code", {}, hook.url), ` in ${hook.containerID}: `,
        hook.enabled ? `failing since ${formatTime(hook.failingSince)}` : `turned off (${hook.disabledReason ?? "after failing"})`, " — ",
        h("a", { href: "#/webhooks", onclick: () => chooseContainer(hook.containerID) }, "see its deliveries"))))));
    replace(table, overview.containers.length === 0
      ? h("p", {}, "No containers yet: ", h("a", { href: "#/containers" }, "create one"), ".")
      : h("div", { class: "table-wrap" }, h("table", {},
        h("thead", {}, h("tr", {}, ["Container", "Requests", "Errors", "Active users", "Mail waiting"].map((name) => h("th", {}, name)))),
        h("tbody", {}, overview.containers.map((figures) => h("tr", {},
          h("td", {}, h("a", { href: "#/telemetry", onclick: (event) => { event.preventDefault(); chooseContainer(figures.containerID); go("telemetry"); } },
            figures.containerID), figures.containerID === state.container ? h("span", { class: "tag good" }, "chosen") : null),
          h("td", {}, figures.requestsToday.toLocaleString()), h("td", {}, figures.errorsToday.toLocaleString()),
          h("td", {}, figures.activeUsersToday.toLocaleString()), h("td", {}, String(figures.mailWaiting))))))));
  };
  await refresh();
  state.leave = refreshEvery(15000, refresh);
}

function tile(id, label, value, tone = null, detail = null) {
  return h("div", { class: `tile${tone ? " " + tone : ""}`, id: `tile-${id}` },
    h("div", { class: "tile-label" }, label), h("div", { class: "tile-value" }, value), detail ? h("div", { class: "tile-detail" }, detail) : null);
}

function backupTile(backups) {
  if (!backups.configured) return tile("backup", "Last backup", "none", "warn", "no scheduled backups (--backup-bucket)");
  const value = backups.lastBackupAt ? formatTime(backups.lastBackupAt) : "none yet";
  return tile("backup", "Last backup", value, backups.problem ? "bad" : backups.lastBackupAt ? "good" : "warn", backups.problem ?? backups.latestRunState ?? null);
}

function percent(part, whole) {
  return `${Math.round((part / whole) * 1000) / 10}%`;
}
