// Transfers: imports into the chosen container and exports of it (stratus import, stratus export), as they go.
import { admin } from "../api.js";
import { h, replace, formatTime, refreshEvery } from "../dom.js";
import { state } from "../app.js";

export async function transfersPage(main) {
  const list = h("div", { id: "transfers" });
  replace(main,
    h("h1", {}, "Imports and exports"),
    h("p", { class: "muted" }, "Imports into ", h("code", {}, state.container), " and exports of it, and how far they got; the page updates every two seconds. ",
      "Start one with stratus import cloudkit, stratus export or stratus import archive (docs/import-export.md)."),
    list);
  const refresh = async () => {
    const { transfers } = await admin.transfers(state.container);
    if (!transfers.length) {
      replace(list, h("p", {}, "No imports into this container or exports of it yet."));
      return;
    }
    replace(list, transfers.map(card));
  };
  await refresh();
  state.leave = refreshEvery(2000, refresh);
}

/** One transfer: what, from where, its state, a progress bar, counts, bytes, rate and time left. */
function card(transfer) {
  const share = transfer.recordsTotal ? Math.min(100, Math.floor((100 * transfer.recordsDone) / transfer.recordsTotal)) : null;
  const counts = transfer.recordsTotal === undefined || transfer.recordsTotal === null
    ? `${transfer.recordsDone} records (counting)`
    : `${transfer.recordsDone} of ${transfer.recordsTotal} records${share === null ? "" : ` (${share}%)`}`;
  const facts = [counts, megabytes(transfer.bytes)];
  if (transfer.recordsPerSecond) facts.push(`${Math.round(transfer.recordsPerSecond)} records/s`);
  if (transfer.state === "running" && transfer.secondsLeft !== undefined && transfer.secondsLeft !== null) facts.push(`about ${duration(transfer.secondsLeft)} left`);
  return h("section", { class: `panel stack transfer transfer-${transfer.state}`, "data-transfer": transfer.id },
    h("div", { class: "row" },
      h("strong", {}, transfer.kind), h("span", { class: `tag ${{ finished: "good", failed: "bad" }[transfer.state] ?? ""}` }, transfer.state),
      h("span", { class: "muted" }, `${transfer.kind.startsWith("export") ? "to" : "from"} ${transfer.peer}`)),
    h("progress", { max: "100", value: String(share ?? 0), "aria-label": `${transfer.id} progress` }),
    h("p", { class: "transfer-facts" }, facts.join(" · ")),
    transfer.message ? h("p", { class: transfer.state === "failed" ? "error-text" : "muted" }, transfer.message) : null,
    h("p", { class: "muted" }, `started ${formatTime(transfer.startedAt)}, updated ${formatTime(transfer.updatedAt)}`));
}

function megabytes(bytes) {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function duration(seconds) {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
