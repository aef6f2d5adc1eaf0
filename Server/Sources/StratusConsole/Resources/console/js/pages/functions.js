// Functions and jobs: the container's WebAssembly modules (uploaded from a .wasm file), the functions bound to
// them (beforeSave, afterSave with its deliveries, callable, schedule), and scheduled jobs with their latest runs.
import { admin } from "../api.js";
import { h, replace, run, showInfo, formatTime } from "../dom.js";
import { state, go } from "../app.js";

export async function functionsPage(main) {
  const [{ modules, functions }, { jobs }, { webhooks }] = await Promise.all([
    admin.functions(state.container), admin.jobs(state.container), admin.webhooks(state.container),
  ]);
  const here = (item) => item.environment === state.environment;
  const cards = await Promise.all(functions.filter(here).map(async (binding) => functionCard(binding,
    binding.eventsEndpoint ? (await admin.webhookDeliveries(state.container, binding.eventsEndpoint)).deliveries : null)));
  replace(main,
    h("h1", {}, "Functions"),
    h("p", { class: "muted" }, "WebAssembly modules of ", h("code", {}, state.container), ` in ${state.environment}, run on every node within their limits (docs/hooks.md).`),
    h("section", { class: "panel stack" }, h("h2", {}, "Modules"), moduleTable(modules.filter(here)), uploadForm()),
    bindForm(modules.filter(here)),
    h("div", { id: "functions" }, cards.length ? cards : h("p", {}, "No functions yet.")),
    h("h2", {}, "Scheduled jobs"),
    jobForm(functions.filter((binding) => here(binding) && binding.trigger === "schedule"), webhooks.filter(here)),
    h("div", { id: "jobs" }, jobs.filter(here).map(jobCard)));
}

function moduleTable(modules) {
  if (!modules.length) return h("p", {}, "No modules yet.");
  return h("table", { class: "modules" },
    h("thead", {}, h("tr", {}, ["Module", "Size", "Exports", "Uploaded", ""].map((name) => h("th", {}, name)))),
    h("tbody", {}, modules.map((module) => h("tr", { "data-module": module.name },
      h("td", {}, module.name), h("td", {}, `${module.size} bytes`), h("td", {}, module.entries.join(", ")), h("td", {}, formatTime(module.uploaded)),
      h("td", {}, h("button", { type: "button", class: "quiet delete", onclick: (event) => run(event.target, async () => {
        await admin.deleteModule(state.container, state.environment, module.name);
        go("functions");
      }) }, "Delete"))))));
}

function uploadForm() {
  const form = h("form", { id: "module-form", class: "row" },
    h("label", { for: "module-name" }, "Name", h("input", { id: "module-name", placeholder: "hooks" })),
    h("label", { for: "module-file" }, "Module (.wasm)", h("input", { id: "module-file", type: "file", accept: ".wasm,application/wasm" })),
    h("button", { type: "submit" }, "Upload"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form.querySelector("button[type=submit]"), async () => {
      const file = form.querySelector("#module-file").files[0];
      const name = form.querySelector("#module-name").value.trim();
      const module = await admin.uploadModule(state.container, state.environment, name, file);
      go("functions");
      showInfo(`Uploaded ${module.name}; it exports ${module.entries.join(", ") || "no function a trigger can call"}.`);
    });
  });
  return form;
}

function bindForm(modules) {
  const field = (id, label, placeholder) => h("label", { for: id }, label, h("input", { id, placeholder: placeholder ?? "" }));
  const list = (id) => form.querySelector("#" + id).value.split(",").map((item) => item.trim()).filter(Boolean);
  const form = h("form", { id: "function-form", class: "panel stack" },
    h("h2", {}, `New function in ${state.environment}`),
    field("function-name", "Name", "checkMessage"),
    h("label", { for: "function-module" }, "Module", h("select", { id: "function-module" }, modules.map((module) => h("option", { value: module.name }, module.name)))),
    h("label", { for: "function-trigger" }, "Trigger", h("select", { id: "function-trigger" },
      ["beforeSave", "afterSave", "callable", "schedule"].map((trigger) => h("option", { value: trigger }, trigger)))),
    field("function-entry", "Exported function (empty: the trigger's usual one)", "before_save"),
    field("function-record-types", "Record types (beforeSave, afterSave)", "Message"),
    field("function-role", "Act as the role (empty: the caller)", "Auditor"),
    h("button", { type: "submit" }, "Save function"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form.querySelector("button[type=submit]"), async () => {
      const settings = {
        module: form.querySelector("#function-module").value, trigger: form.querySelector("#function-trigger").value, recordTypes: list("function-record-types"),
      };
      const entry = form.querySelector("#function-entry").value.trim();
      const role = form.querySelector("#function-role").value.trim();
      if (entry) settings.entry = entry;
      if (role) settings.runAsRole = role;
      const name = form.querySelector("#function-name").value.trim();
      await admin.saveFunction(state.container, state.environment, name, settings);
      go("functions");
      showInfo(`Function ${name} saved; every node runs it now.`);
    });
  });
  return form;
}

function functionCard(binding, deliveries) {
  const limits = binding.effectiveLimits;
  const rows = (deliveries ?? []).map((delivery) => h("tr", { class: `delivery delivery-${delivery.status}` },
    h("td", {}, formatTime(delivery.created)), h("td", {}, delivery.eventType), h("td", {}, delivery.status), h("td", {}, String(delivery.attempts)),
    h("td", { class: "reply" }, delivery.lastResponse ?? "")));
  return h("section", { class: "panel stack function", "data-function": binding.name },
    h("div", { class: "row" }, h("strong", {}, binding.name), h("span", { class: `tag ${binding.enabled ? "good" : "bad"}` }, binding.enabled ? binding.trigger : "off"),
      h("span", { class: "muted" }, `${binding.module}.${binding.entry}${binding.recordTypes.length ? " · " + binding.recordTypes.join(", ") : ""}`
        + ` · as ${binding.runAsRole ?? "the caller"} · ${limits.instructions.toLocaleString()} instructions, ${Math.round(limits.memoryBytes / 1048576)} MiB, ${limits.seconds} s`)),
    h("div", { class: "row" },
      h("button", { type: "button", class: "quiet toggle", onclick: (event) => run(event.target, async () => {
        await admin.saveFunction(state.container, state.environment, binding.name, { ...binding, enabled: !binding.enabled });
        go("functions");
      }) }, binding.enabled ? "Turn off" : "Turn on"),
      h("button", { type: "button", class: "quiet delete", onclick: (event) => run(event.target, async () => {
        await admin.deleteFunction(state.container, state.environment, binding.name);
        go("functions");
      }) }, "Delete")),
    deliveries ? h("table", { class: "deliveries" },
      h("thead", {}, h("tr", {}, ["When", "Event", "Status", "Attempts", "Answer or error"].map((name) => h("th", {}, name)))),
      h("tbody", {}, rows)) : null);
}

function jobForm(scheduled, webhooks) {
  const targets = [...scheduled.map((binding) => ({ value: `function:${binding.name}`, label: `function ${binding.name}` })),
    ...webhooks.map((webhook) => ({ value: `webhook:${webhook.id}`, label: `webhook ${webhook.url}` }))];
  const form = h("form", { id: "job-form", class: "panel stack" },
    h("h2", {}, `New job in ${state.environment}`),
    h("label", { for: "job-name" }, "Name", h("input", { id: "job-name", placeholder: "nightly" })),
    h("label", { for: "job-schedule" }, "Schedule (cron)", h("input", { id: "job-schedule", placeholder: "0 3 * * *" })),
    h("label", { for: "job-time-zone" }, "Time zone", h("input", { id: "job-time-zone", value: "UTC" })),
    h("label", { for: "job-target" }, "Runs", h("select", { id: "job-target" }, targets.map((target) => h("option", { value: target.value }, target.label)))),
    h("label", { for: "job-skip" }, h("input", { id: "job-skip", type: "checkbox" }), " Skip runs missed while no node was up"),
    h("button", { type: "submit" }, "Save job"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form.querySelector("button[type=submit]"), async () => {
      const [kind, target] = form.querySelector("#job-target").value.split(/:(.*)/s);
      const name = form.querySelector("#job-name").value.trim();
      const job = await admin.saveJob(state.container, state.environment, name, {
        schedule: form.querySelector("#job-schedule").value.trim(), timeZone: form.querySelector("#job-time-zone").value.trim() || "UTC",
        [kind]: target, missedRuns: form.querySelector("#job-skip").checked ? "skip" : "runOnce",
      });
      go("functions");
      showInfo(`Job ${name} saved; next run ${formatTime(job.nextRun)}.`);
    });
  });
  return form;
}

function jobCard(job) {
  return h("section", { class: "panel stack job", "data-job": job.name },
    h("div", { class: "row" }, h("strong", {}, job.name), h("code", {}, job.schedule), h("span", { class: "muted" },
      `${job.timeZone} · ${job.function ? "function " + job.function : "webhook " + job.webhook} · missed runs: ${job.missedRuns} · next ${formatTime(job.nextRun)}`),
      h("button", { type: "button", class: "quiet delete", onclick: (event) => run(event.target, async () => {
        await admin.deleteJob(state.container, state.environment, job.name);
        go("functions");
      }) }, "Delete")),
    h("table", { class: "runs" },
      h("thead", {}, h("tr", {}, ["Due", "Status", "Node", "Missed", "Result"].map((name) => h("th", {}, name)))),
      h("tbody", {}, job.lastRuns.map((run) => h("tr", { class: `run run-${run.status}` },
        h("td", {}, formatTime(run.scheduledFor)), h("td", {}, run.status), h("td", {}, run.node), h("td", {}, String(run.missedRuns)),
        h("td", { class: "reply" }, run.result))))));
}
