// The console's shell: sign-in, the container and environment pickers, and the sections.
import { admin, setCSRFToken, whenSignedOut } from "./api.js";
import { h, replace, showError, clearNotices, run } from "./dom.js";
import { containersPage } from "./pages/containers.js";
import { schemaPage } from "./pages/schema.js";
import { recordsPage } from "./pages/records.js";
import { usersPage } from "./pages/users.js";
import { accountsPage } from "./pages/accounts.js";
import { subscriptionsPage } from "./pages/subscriptions.js";
import { activityPage } from "./pages/activity.js";
import { transfersPage } from "./pages/transfers.js";
import { webhooksPage } from "./pages/webhooks.js";
import { functionsPage } from "./pages/functions.js";
import { quotasPage } from "./pages/quotas.js";
import { backupsPage } from "./pages/backups.js";
import { telemetryPage } from "./pages/telemetry.js";
import { peoplePage } from "./pages/people.js";
import { userPage } from "./pages/user.js";
import { overviewPage } from "./pages/overview.js";

const sections = {
  overview: overviewPage, containers: containersPage, schema: schemaPage, records: recordsPage,
  users: usersPage, accounts: accountsPage, subscriptions: subscriptionsPage, transfers: transfersPage, webhooks: webhooksPage, functions: functionsPage, quotas: quotasPage, telemetry: telemetryPage, user: userPage, people: peoplePage, backups: backupsPage, activity: activityPage,
};

/** What every page shares: the chosen container and environment, and the containers known. */
export const state = {
  containers: [],
  container: localStorage.getItem("stratus.container") ?? "",
  environment: localStorage.getItem("stratus.environment") ?? "development",
  /** Set by the page on show; called when leaving it (to stop polling). */
  leave: null,
};

const main = document.getElementById("main");
const topBar = document.getElementById("top-bar");
const containerPicker = document.getElementById("container-picker");
const environmentPicker = document.getElementById("environment-picker");

/** Reloads the containers and fills the picker; keeps the chosen one when it still exists. */
export async function refreshContainers() {
  const { containers } = await admin.containers();
  state.containers = containers;
  if (!containers.some((c) => c.containerID === state.container)) chooseContainer(containers[0]?.containerID ?? "");
  replace(containerPicker, containers.length === 0 ? h("option", { value: "" }, "no containers yet") :
    containers.map((c) => h("option", { value: c.containerID, selected: c.containerID === state.container }, c.containerID)));
}

export function chooseContainer(containerID) {
  state.container = containerID;
  localStorage.setItem("stratus.container", containerID);
  containerPicker.value = containerID;
}

/** Navigates to a section with optional parameters: go("records", {type: "Message"}). */
export function go(section, parameters = {}) {
  const query = new URLSearchParams(parameters).toString();
  const hash = `#/${section}${query ? "?" + query : ""}`;
  if (location.hash === hash) show(); else location.hash = hash;
}

function route() {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  return { section: sections[path] ? path : "overview", parameters: Object.fromEntries(new URLSearchParams(query ?? "")) };
}

async function show() {
  if (state.leave) { state.leave(); state.leave = null; }
  const { section, parameters } = route();
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.section === section) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  clearNotices();
  // Each navigation renders into a view of its own: a page still loading when the operator moves on keeps
  // writing into its own view, which is no longer shown, and never over the page shown after it.
  const view = h("div", { class: "view" });
  replace(main, view);
  replace(view, h("p", { class: "muted" }, "Loading…"));
  try {
    if (!["overview", "containers", "activity", "people", "backups"].includes(section) && !state.container) {
      replace(view, h("h1", {}, "No container"), h("p", {}, "Create a container first, under ", h("a", { href: "#/containers" }, "Containers"), "."));
      return;
    }
    await sections[section](view, parameters);
  } catch (error) {
    if (!view.isConnected) return;
    replace(view, h("h1", {}, "Something went wrong"), h("p", { class: "error-text" }, error.reason ?? error.message));
    showError(error);
  }
  if (view.isConnected) document.title = `${section[0].toUpperCase()}${section.slice(1)} · Stratus console`;
}

function showSignIn(message) {
  topBar.hidden = true;
  setCSRFToken(null);
  const key = h("input", { type: "password", id: "admin-key", name: "adminKey", autocomplete: "current-password", required: true });
  const error = h("p", { class: "error-text", role: "alert" }, message ?? "");
  const submit = h("button", { type: "submit" }, "Sign in");
  const form = h("form", { class: "panel stack sign-in", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title" }, "Stratus console"),
    h("p", { class: "muted" }, "Sign in with this server's admin key (stratus-data/admin.key, or the one given to stratus serve)."),
    h("label", { for: "admin-key" }, "Admin key"), key, error, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await run(submit, async () => {
      try {
        const session = await admin.signIn(key.value.trim());
        await start(session.csrfToken);
      } catch (failure) {
        error.textContent = failure.reason ?? failure.message;
        key.select();
      }
    });
  });
  replace(main, form, operatorSignIn());
  key.focus();
}

/** Signing in as a person: address, password and the authenticator app's code; or setting that app up first. */
function operatorSignIn() {
  const field = (id, label, type, autocomplete) => [h("label", { for: id }, label), h("input", { id, type, autocomplete, required: true })];
  const error = h("p", { class: "error-text", role: "alert" });
  const setup = h("div", { id: "operator-enrolment", class: "stack" });
  const submit = h("button", { type: "submit" }, "Sign in");
  const value = (id) => form.querySelector("#" + id).value.trim();
  const form = h("form", { id: "operator-sign-in", class: "panel stack sign-in", "aria-labelledby": "operator-sign-in-title" },
    h("h2", { id: "operator-sign-in-title" }, "Or sign in as an operator"),
    field("operator-email", "Email", "email", "username"), field("operator-password", "Password", "password", "current-password"),
    h("label", { for: "operator-code" }, "Authenticator code"), h("input", { id: "operator-code", inputmode: "numeric", autocomplete: "one-time-code" }),
    error, submit,
    h("button", { type: "button", class: "quiet", id: "operator-enrol", onclick: (event) => run(event.target, async () => {
      try {
        const { secret, otpauthURI } = await admin.beginEnrolment(value("operator-email"), form.querySelector("#operator-password").value);
        replace(setup,
          h("p", {}, "Add this key to your authenticator app, then enter the code it shows and sign in:"),
          h("code", { id: "operator-secret" }, secret), h("a", { href: otpauthURI }, "Open in an authenticator app"),
          h("button", { type: "button", id: "operator-confirm", onclick: (confirmEvent) => run(confirmEvent.target, async () => {
            try {
              await admin.confirmEnrolment(value("operator-email"), form.querySelector("#operator-password").value, value("operator-code"));
              replace(setup, h("p", {}, "Your authenticator app is set up. Sign in with its next code."));
              form.querySelector("#operator-code").value = "";
            } catch (failure) {
              error.textContent = failure.reason ?? failure.message;
            }
          }) }, "Confirm the code"));
      } catch (failure) {
        error.textContent = failure.reason ?? failure.message;
      }
    }) }, "Set up my authenticator app"),
    setup);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    await run(submit, async () => {
      try {
        const session = await admin.signInAsOperator(value("operator-email"), form.querySelector("#operator-password").value, value("operator-code"));
        await start(session.csrfToken);
      } catch (failure) {
        error.textContent = failure.reason ?? failure.message;
      }
    });
  });
  return form;
}

async function start(csrfToken) {
  setCSRFToken(csrfToken);
  topBar.hidden = false;
  await refreshContainers();
  environmentPicker.value = state.environment;
  await show();
  main.focus();
}

containerPicker.addEventListener("change", () => { chooseContainer(containerPicker.value); show(); });
environmentPicker.addEventListener("change", () => {
  state.environment = environmentPicker.value;
  localStorage.setItem("stratus.environment", state.environment);
  show();
});
document.getElementById("sign-out").addEventListener("click", async () => {
  try { await admin.signOut(); } catch (error) { /* the session may be gone already */ }
  if (state.leave) { state.leave(); state.leave = null; }
  showSignIn("Signed out.");
});
window.addEventListener("hashchange", () => { if (!topBar.hidden) show(); });
whenSignedOut(() => showSignIn("Your session has ended; sign in again."));

// A reload keeps the session: the cookie is still there, and the server tells the CSRF token again.
admin.session().then((session) => start(session.csrfToken), () => showSignIn());
