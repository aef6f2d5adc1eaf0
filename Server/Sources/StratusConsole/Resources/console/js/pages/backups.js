// Backups: the server's scheduled backups to a bucket, the latest run, and a button to make one now.
import { admin } from "../api.js";
import { h, replace, run, refreshEvery, formatBytes, formatTime } from "../dom.js";
import { state } from "../app.js";

export async function backupsPage(main) {
  const summary = h("div", { id: "backup-schedule" });
  const latest = h("p", { id: "backup-latest" });
  const body = h("tbody", {});
  const start = h("button", { type: "button", id: "start-backup" }, "Back up now");
  replace(main,
    h("h1", {}, "Backups"),
    summary, h("div", { class: "row" }, start), latest,
    h("h2", {}, "In the bucket"),
    h("div", { class: "table-wrap" }, h("table", { id: "backups-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Backup"), h("th", {}, "Taken"), h("th", {}, "Size"))), body)));

  const refresh = async () => {
    const listing = await admin.backups();
    if (!listing.configured) {
      replace(summary, h("p", { class: "muted" },
        "This server makes no scheduled backups. Start it with --backup-bucket (and the S3 settings) to back its data folder up to a bucket; see docs/backups.md."));
      start.hidden = true;
      replace(body);
      return;
    }
    const { destination, intervalSeconds, keep } = listing.schedule;
    replace(summary, h("p", {}, "Every ", hours(intervalSeconds), " to ", h("code", {}, destination), `, keeping the newest ${keep}.`));
    const latestRun = listing.latestRun;
    replace(latest, latestRun ? describe(latestRun) : "No backup made since the server started.");
    start.disabled = latestRun?.state === "running";
    if (listing.bucketError) {
      replace(body, h("tr", {}, h("td", { colspan: "3", class: "status-5" }, `The bucket cannot be listed: ${listing.bucketError}`)));
      return;
    }
    replace(body, listing.backups.length === 0
      ? h("tr", {}, h("td", { colspan: "3", class: "muted" }, "No backups yet."))
      : listing.backups.map((backup) => h("tr", {},
        h("td", {}, h("code", {}, backup.name)), h("td", {}, formatTime(backup.takenAt)), h("td", {}, formatBytes(backup.bytes)))));
  };

  start.addEventListener("click", () => run(start, async () => {
    await admin.startBackup();
    await refresh();
  }));
  await refresh();
  state.leave = refreshEvery(3000, refresh);
}

function hours(seconds) {
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

function describe(run) {
  const when = formatTime(run.startedAt);
  if (run.state === "running") return `A backup is being made (since ${when}).`;
  if (run.state === "failed") return h("span", { class: "status-5" }, `The latest backup, at ${when}, failed: ${run.message}`);
  return `The latest backup, ${run.name}, was made at ${when}: ${run.records} records, ${formatBytes(run.bytes)}` + (run.message ? ` (${run.message}).` : ".");
}
