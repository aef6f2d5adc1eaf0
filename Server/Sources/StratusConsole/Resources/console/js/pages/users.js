// Users: search accounts, see their record counts and state, assign roles, disable, sign out, reset, delete.
import { admin } from "../api.js";
import { h, replace, run, showInfo, formatTime } from "../dom.js";
import { state, go } from "../app.js";

export async function usersPage(main, parameters) {
  const offset = Number(parameters.offset ?? 0);
  const search = parameters.search ?? "";
  const [{ users, moreComing }, schema] = await Promise.all([
    admin.users(state.container, state.environment, { search, offset }),
    admin.schema(state.container, state.environment),
  ]);
  const searchInput = h("input", { id: "user-search", type: "search", value: search, placeholder: "email, name or userRecordName" });
  const form = h("form", { class: "row", role: "search" }, h("label", { for: "user-search" }, "Search", searchInput), h("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (event) => { event.preventDefault(); go("users", { search: searchInput.value.trim() }); });
  const roles = schema.roles ?? [];
  // The container's developer is whom server-to-server keys act as; an anonymous account has no address yet.
  const who = (user) => user.developer ? "Server-to-server keys" : displayName(user);
  const rows = users.map((user) => h("tr", {},
    h("td", {}, h("div", {}, h("a", { href: `#/user?user=${encodeURIComponent(user.userRecordName)}`, class: "user-link" }, who(user))),
      h("div", { class: "muted" }, [user.givenName, user.familyName].filter(Boolean).join(" "))),
    h("td", { class: "hide-narrow" }, h("code", {}, user.userRecordName)),
    h("td", {}, `${user.publicRecords} public · `,
      h("a", { href: "#/records?" + new URLSearchParams({ db: "private", user: user.userRecordName }) }, `${user.privateRecords} private`)),
    h("td", {}, roleEditor(user, roles)),
    h("td", {}, status(user)),
    h("td", {}, user.developer ? null : actions(user)),
    h("td", { class: "hide-narrow" }, formatTime(user.created))));
  replace(main,
    h("h1", {}, `Users · ${state.environment}`),
    h("div", { class: "panel" }, form),
    rows.length ? h("div", { class: "table-wrap" }, h("table", { id: "users-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "User"), h("th", { class: "hide-narrow" }, "userRecordName"), h("th", {}, "Records"), h("th", {}, `Roles in ${state.environment}`), h("th", {}, "State"), h("th", {}, "Actions"), h("th", { class: "hide-narrow" }, "Signed up"))),
      h("tbody", {}, rows))) : h("p", {}, search ? "No user matches." : "No users have signed up yet."),
    h("div", { class: "row" },
      offset > 0 ? h("button", { type: "button", class: "quiet", onclick: () => go("users", { search, offset: String(Math.max(0, offset - 25)) }) }, "Previous page") : null,
      moreComing ? h("button", { type: "button", class: "quiet", onclick: () => go("users", { search, offset: String(offset + 25) }) }, "Next page") : null));
}

function roleEditor(user, roles) {
  const current = new Set(user.roles);
  const saveRoles = (button, next) => run(button, async () => {
    const answer = await admin.setRoles(state.container, state.environment, user.userRecordName, [...next]);
    user.roles = answer.roles;
    showInfo(`${displayName(user)}: roles ${answer.roles.length ? answer.roles.join(", ") : "none"}.`);
    go("users");
  });
  const available = roles.filter((role) => !current.has(role));
  const choice = h("select", { "aria-label": `Role to give ${displayName(user)}` }, available.map((role) => h("option", { value: role }, role)));
  const add = h("button", { type: "button", class: "quiet", "aria-label": `Give ${displayName(user)} the role` }, "Add");
  add.addEventListener("click", () => saveRoles(add, new Set([...current, choice.value])));
  return h("div", { class: "editor-item" },
    [...current].map((role) => h("span", { class: "tag" }, role,
      h("button", { type: "button", class: "quiet", "aria-label": `Remove role ${role} from ${displayName(user)}`, onclick: (event) => saveRoles(event.currentTarget, new Set([...current].filter((r) => r !== role))) }, "×"))),
    available.length ? [choice, add] : current.size ? null : h("span", { class: "muted" }, roles.length ? "" : "no custom roles in the schema"));
}

/** The user's address, or for an anonymous account a name made of its record name. */
export function displayName(user) {
  return user.emailAddress || `anonymous ${user.userRecordName.slice(1, 9)}`;
}

function status(user) {
  if (user.developer) return null;
  return h("div", {},
    user.disabled ? h("span", { class: "tag warning" }, "disabled") : null,
    user.anonymous ? h("span", { class: "tag" }, "anonymous")
      : h("span", { class: "muted" }, user.emailVerified ? "verified" : "unverified"),
    h("div", { class: "muted" }, signInMethods(user)));
}

/** How the user signs in: a password, passkeys, an authenticator app. */
function signInMethods(user) {
  const methods = [];
  if (user.hasPassword) methods.push("password");
  if (user.passkeys) methods.push(user.passkeys === 1 ? "1 passkey" : `${user.passkeys} passkeys`);
  for (const provider of user.identities ?? []) methods.push(provider === "apple" ? "Apple" : provider);
  if (user.totpEnabled) methods.push("authenticator app");
  if (user.anonymous) return "this device's session only";
  return methods.join(" · ") || (user.emailAddress ? "mailed codes only" : "");
}

/** What an operator does to a user; each takes effect on every node at once. */
function actions(user) {
  const name = displayName(user);
  const act = (label, action, done, question) => h("button", {
    type: "button", class: "quiet", "aria-label": `${label} ${name}`,
    onclick: (event) => {
      if (question && !confirm(question)) return;
      run(event.currentTarget, async () => {
        await action();
        showInfo(`${name}: ${done}.`);
        go("users");
      });
    },
  }, label);
  const target = [state.container, state.environment, user.userRecordName];
  return h("div", { class: "row" },
    user.disabled
      ? act("Enable", () => admin.userAction(...target, "enable"), "enabled")
      : act("Disable", () => admin.userAction(...target, "disable"), "disabled and signed out", `Disable ${name}? They are signed out everywhere at once.`),
    act("Sign out", () => admin.userAction(...target, "sessions/end"), "signed out everywhere"),
    user.emailAddress ? act("Send reset", () => admin.userAction(...target, "reset"), "a password reset is on its way") : null,
    user.passkeys || user.totpEnabled
      ? act("Remove second factors", () => admin.userAction(...target, "second-factors/remove"), "second factors removed and signed out",
        `Remove ${name}'s authenticator app and passkeys? They are signed out and set them up again.`)
      : null,
    act("Delete", () => admin.deleteUser(...target), "deleted",
      `Delete ${name} for good? Their private data, shares and subscriptions go at once; this cannot be undone.`));
}
