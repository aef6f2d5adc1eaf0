// Webhooks: the container's endpoints (a new one's secret shown once), whether each works or was turned off, and
// each one's deliveries: status, attempts, the last answer and latency; a delivery retried, events replayed.
import { admin } from "../api.js";
import { h, replace, run, showInfo, formatTime } from "../dom.js";
import { state, go } from "../app.js";

export async function webhooksPage(main) {
  const { webhooks } = await admin.webhooks(state.container);
  const cards = await Promise.all(webhooks.map(async (webhook) => card(webhook, (await admin.webhookDeliveries(state.container, webhook.id)).deliveries)));
  replace(main,
    h("h1", {}, "Webhooks"),
    h("p", { class: "muted" }, "Endpoints of ", h("code", {}, state.container), " receive its events as signed JSON, at least once and in order per zone (docs/hooks.md)."),
    createForm(),
    h("div", { id: "webhooks" }, cards.length ? cards : h("p", {}, "No endpoints yet.")));
}

function createForm() {
  const field = (id, label, placeholder) => h("label", { for: id }, label, h("input", { id, placeholder: placeholder ?? "" }));
  const list = (form, id) => form.querySelector("#" + id).value.split(",").map((item) => item.trim()).filter(Boolean);
  const form = h("form", { id: "webhook-form", class: "panel stack" },
    h("h2", {}, `New endpoint in ${state.environment}`),
    field("webhook-url", "URL", "https://hooks.example.com/stratus"),
    field("webhook-events", "Events (comma-separated; none: all)", "record.created, account.deleted"),
    field("webhook-record-types", "Record types (none: all)", "Note"),
    field("webhook-zones", "Zones (none: all)", "inbox"),
    h("button", { type: "submit" }, "Add endpoint"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form.querySelector("button[type=submit]"), async () => {
      const made = await admin.createWebhook(state.container, state.environment, {
        url: form.querySelector("#webhook-url").value.trim(), eventTypes: list(form, "webhook-events"),
        recordTypes: list(form, "webhook-record-types"), zoneNames: list(form, "webhook-zones"),
      });
      go("webhooks");
      showInfo(`Endpoint added. Its signing secret, shown this once: ${made.secret}`);
    });
  });
  return form;
}

function card(webhook, deliveries) {
  const status = webhook.enabled ? (webhook.failingSince ? `failing since ${formatTime(webhook.failingSince)}` : "working") : "turned off";
  const rows = deliveries.map((delivery) => h("tr", { class: `delivery delivery-${delivery.status}` },
    h("td", {}, formatTime(delivery.created)), h("td", {}, delivery.eventType), h("td", {}, delivery.status),
    h("td", {}, String(delivery.attempts)), h("td", {}, delivery.lastStatus === undefined ? "" : String(delivery.lastStatus)),
    h("td", {}, delivery.latency === undefined ? "" : `${delivery.latency} ms`), h("td", { class: "reply" }, delivery.lastResponse ?? ""),
    h("td", {}, h("button", { type: "button", class: "quiet retry", onclick: (event) => run(event.target, async () => {
      await admin.retryWebhookDelivery(state.container, webhook.id, delivery.id);
      go("webhooks");
      showInfo("Delivery queued again.");
    }) }, "Retry"))));
  const since = h("input", { type: "datetime-local", class: "replay-since", "aria-label": "replay since" });
  return h("section", { class: "panel stack webhook", "data-webhook": webhook.id },
    h("div", { class: "row" }, h("strong", {}, webhook.url), h("span", { class: `tag ${webhook.enabled ? (webhook.failingSince ? "" : "good") : "bad"}` }, status),
      h("span", { class: "muted" }, `${webhook.environment} · ${webhook.eventTypes.length ? webhook.eventTypes.join(", ") : "every event"}`)),
    webhook.disabledReason ? h("p", { class: "error-text disabled-reason" }, `Turned off: ${webhook.disabledReason}`) : null,
    h("div", { class: "row" },
      webhook.enabled ? null : h("button", { type: "button", class: "enable", onclick: (event) => run(event.target, async () => {
        await admin.updateWebhook(state.container, webhook.id, { enabled: true });
        go("webhooks");
      }) }, "Turn on again"),
      since, h("button", { type: "button", class: "replay", onclick: (event) => run(event.target, async () => {
        const from = since.value ? new Date(since.value).getTime() : 0;
        const { replayed } = await admin.replayWebhook(state.container, webhook.id, from);
        go("webhooks");
        showInfo(`${replayed} event(s) queued again.`);
      }) }, "Replay since"),
      h("button", { type: "button", class: "quiet delete", onclick: (event) => run(event.target, async () => {
        await admin.deleteWebhook(state.container, webhook.id);
        go("webhooks");
      }) }, "Delete")),
    h("table", { class: "deliveries" },
      h("thead", {}, h("tr", {}, ["When", "Event", "Status", "Attempts", "Answer", "Latency", "Reply", ""].map((name) => h("th", {}, name)))),
      h("tbody", {}, rows)));
}
