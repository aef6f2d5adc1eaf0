// Activity: this server's latest requests, live, and its counters for the last hour.
import { admin } from "../api.js";
import { h, replace, refreshEvery } from "../dom.js";
import { state } from "../app.js";

export async function activityPage(main) {
  const counters = h("div", { class: "counters", id: "counters" });
  const bars = h("div", { class: "bars", id: "minute-bars", role: "img", "aria-label": "Requests per minute, last hour" });
  const body = h("tbody", {});
  const node = h("strong", { id: "activity-node" }, "…");
  const pause = h("button", { type: "button", class: "quiet", id: "pause-activity", "aria-pressed": "false" }, "Pause");
  replace(main,
    h("h1", {}, "Activity"),
    h("p", { class: "muted" }, "The requests of server node ", node, "; the list updates every two seconds. ",
      "Behind a load balancer each node keeps its own: open the console on a node's own address to see that node."),
    counters, h("h2", {}, "Requests per minute"), bars,
    h("h2", {}, "Latest requests"), h("div", { class: "row" }, pause),
    h("div", { class: "table-wrap" }, h("table", { id: "activity-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "Time"), h("th", {}, "Request"), h("th", {}, "Status"), h("th", {}, "Latency"))), body)));
  let after = 0;
  let paused = false;
  pause.addEventListener("click", () => { paused = !paused; pause.textContent = paused ? "Resume" : "Pause"; pause.setAttribute("aria-pressed", String(paused)); });
  const refresh = async () => {
    const activity = await admin.activity(after);
    // Behind a load balancer another node may answer: the page says which one did.
    node.textContent = activity.node ?? "…";
    const { requests, errors, p50Ms, p99Ms } = activity.lastHour;
    replace(counters,
      counter("Requests, last hour", requests), counter("Errors", errors),
      counter("p50 latency", p50Ms === undefined ? "–" : `${p50Ms} ms`), counter("p99 latency", p99Ms === undefined ? "–" : `${p99Ms} ms`));
    // Sixty slots, one a minute, oldest first; minutes without requests stay empty.
    const byMinute = new Map(activity.minutes.map((minute) => [Math.floor(minute.start / 60000), minute]));
    const now = Math.floor(Date.now() / 60000);
    const slots = Array.from({ length: 60 }, (_, index) => byMinute.get(now - 59 + index) ?? { start: (now - 59 + index) * 60000, requests: 0, errors: 0 });
    const peak = Math.max(1, ...slots.map((m) => m.requests));
    replace(bars, slots.map((minute) => h("span", {
      class: minute.errors ? "has-errors" : "", title: `${new Date(minute.start).toLocaleTimeString()}: ${minute.requests} requests, ${minute.errors} errors`,
      style: { height: `${(100 * minute.requests) / peak}%`, "--error-share": `${(100 * minute.errors) / Math.max(1, minute.requests)}%` },
    })));
    for (const entry of activity.recent) {
      body.prepend(h("tr", {},
        h("td", {}, new Date(entry.time).toLocaleTimeString()),
        h("td", {}, h("code", {}, `${entry.method} ${entry.path}`)),
        h("td", { class: `status-${String(entry.status)[0]}` }, String(entry.status)),
        h("td", {}, `${entry.ms.toFixed(1)} ms`)));
      after = Math.max(after, entry.sequence);
    }
    while (body.children.length > 200) body.lastElementChild.remove();
  };
  await refresh();
  state.leave = refreshEvery(2000, refresh, () => paused);
}

function counter(title, value) {
  return h("div", { class: "counter" }, h("span", { class: "muted" }, title), h("strong", {}, String(value)));
}
