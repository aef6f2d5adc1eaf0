// Accounts: how a container's accounts verify and leave, the wording of its mail (edited and previewed), and the
// mail sent lately (recipients and outcomes; the codes are never kept).
import { admin } from "../api.js";
import { h, replace, run, showInfo, formatTime } from "../dom.js";
import { state, go } from "../app.js";

export async function accountsPage(main, parameters) {
  const [settings, inUse, templates, recent, secrets, revocations] = await Promise.all([
    admin.accountSettings(state.container),
    admin.signInMethodCounts(state.container),
    admin.mailTemplates(state.container, state.environment),
    admin.recentMail(state.container),
    admin.secrets(state.container),
    admin.revocations(state.container),
  ]);
  replace(main,
    h("h1", {}, "Accounts"),
    settingsPanel(settings, inUse.methods),
    secretsPanel(settings, secrets, revocations.revocations),
    templatePanel(templates, parameters),
    mailPanel(recent));
}

function choice(id, label, value, options) {
  return h("label", { for: id }, label, h("select", { id }, options.map(([option, text]) => h("option", { value: option, selected: option === value }, text))));
}

/** Settings that belong together, under a legend. */
function group(id, legend, ...fields) {
  return h("fieldset", { id: `settings-${id}`, class: "stack settings-group" }, h("legend", {}, legend), ...fields);
}

/** How many accounts use each way in, as a line of text. */
function methodsInUse(methods) {
  const names = { password: "password", passkey: "passkeys", anonymous: "anonymous", apple: "Apple" };
  const parts = Object.entries(methods).map(([method, users]) => `${names[method] ?? method}: ${users}`);
  return parts.length ? parts.join(" · ") : "no accounts yet";
}

function settingsPanel(settings, methods) {
  const field = (id, label, value, placeholder) => h("label", { for: id }, label, h("input", { id, value: value ?? "", placeholder: placeholder ?? "" }));
  const form = h("form", { id: "account-settings", class: "panel stack" },
    h("h2", {}, "Settings"),
    h("p", { id: "methods-in-use", class: "muted" }, "Ways in use: " + methodsInUse(methods)),
    group("sign-in", "Sign-in methods",
      field("app-name", "App name (in mail and pages)", settings.appName, state.container),
      choice("email-verification", "Email verification", settings.emailVerification,
        [["optional", "optional: apps read emailVerified"], ["required", "required before sign-in"]]),
      field("redirect-urls", "The sign-in page may return to (addresses, comma-separated)", (settings.redirectURLs ?? []).join(", "), "https://app.example.com/"),
      field("cloudkit-source", "CloudKit source users claim their records from (URL, container, environment, API token)",
        settings.cloudKitSource ? [settings.cloudKitSource.url, settings.cloudKitSource.containerID, settings.cloudKitSource.environment,
          settings.cloudKitSource.apiToken].join(" ") : "", "https://api.apple-cloudkit.com iCloud.com.example.App production <token>")),
    group("mail", "Mail",
      field("sender-address", "Mail from (address)", settings.senderAddress, "the server's --smtp-from"),
      field("sender-name", "Mail from (name)", settings.senderName, "the app name"),
      field("languages", "Languages (first is the default)", (settings.languages ?? ["en"]).join(", "))),
    group("passkeys", "Passkeys",
      field("passkey-rp-id", "Passkeys' domain (relying party ID; in apps' associated domains)", settings.passkeyRelyingPartyID, "this server's host"),
      field("passkey-origins", "Other origins that use passkeys (comma-separated)", (settings.passkeyOrigins ?? []).join(", "),
        "https://app.example.com, android:apk-key-hash:…"),
      field("passkey-apple-apps", "Apple apps using passkeys (team ID and bundle ID, comma-separated)", (settings.passkeyAppleAppIDs ?? []).join(", "),
        "ABCDE12345.com.example.Notes"),
      field("passkey-android-apps", "Android apps using passkeys (package and certificate SHA-256, comma-separated)",
        (settings.passkeyAndroidApps ?? []).map((app) => [app.packageName, ...app.sha256CertFingerprints].join(" ")).join(", "),
        "com.example.notes AB:CD:…")),
    group("providers", "Providers",
      field("apple-client-ids", "Sign in with Apple: bundle IDs and Services IDs (comma-separated; none turns it off)",
        (settings.appleClientIDs ?? []).join(", "), "com.example.Notes"),
      field("apple-team-id", "Sign in with Apple: team ID (to revoke deleted accounts' tokens, with the key below)", settings.appleTeamID, "ABCDE12345"),
      field("apple-key-id", "Sign in with Apple: the key's ID", settings.appleKeyID, "KEY1234567"),
      field("openid-providers", "OpenID Connect providers (name, issuer and client IDs; comma between providers)",
        (settings.openIDProviders ?? []).map((p) => [p.name, p.issuer, ...p.clientIDs].join(" ")).join(", "),
        "acme https://sso.example.com notes-app")),
    group("second-factor-group", "Second factor",
      choice("second-factor", "Second factor", settings.secondFactor,
        [["optional", "each user chooses"], ["required", "required of every account"]])),
    group("lifetimes", "Lifetimes",
      field("anonymous-lifetime", "Days before an unused anonymous account is deleted (0 keeps them)", String(settings.anonymousAccountLifetimeDays ?? 30)),
      choice("deleted-public-records", "A deleted user's public records", settings.deletedUserPublicRecords,
        [["keep", "stay, without an owner"], ["delete", "are deleted too"]])),
    h("button", { type: "submit" }, "Save settings"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = (id) => form.querySelector("#" + id).value.trim();
    run(form.querySelector("button[type=submit]"), async () => {
      await admin.saveAccountSettings(state.container, {
        appName: value("app-name") || undefined, emailVerification: value("email-verification"), secondFactor: value("second-factor"),
        senderAddress: value("sender-address") || undefined, senderName: value("sender-name") || undefined,
        languages: value("languages").split(",").map((tag) => tag.trim()).filter(Boolean),
        deletedUserPublicRecords: value("deleted-public-records"),
        redirectURLs: value("redirect-urls").split(",").map((address) => address.trim()).filter(Boolean),
        anonymousAccountLifetimeDays: Number(value("anonymous-lifetime") || 30),
        appleClientIDs: value("apple-client-ids").split(",").map((id) => id.trim()).filter(Boolean),
        appleTeamID: value("apple-team-id") || undefined, appleKeyID: value("apple-key-id") || undefined,
        cloudKitSource: cloudKitSource(value("cloudkit-source")),
        openIDProviders: value("openid-providers").split(",").map((entry) => entry.trim().split(/\s+/)).filter((parts) => parts[0])
          .map(([name, issuer, ...clientIDs]) => ({ name, issuer: issuer ?? "", clientIDs })),
        passkeyRelyingPartyID: value("passkey-rp-id") || undefined,
        passkeyOrigins: value("passkey-origins").split(",").map((origin) => origin.trim()).filter(Boolean),
        passkeyAppleAppIDs: value("passkey-apple-apps").split(",").map((app) => app.trim()).filter(Boolean),
        passkeyAndroidApps: value("passkey-android-apps").split(",").map((entry) => entry.trim().split(/\s+/)).filter((parts) => parts[0])
          .map(([packageName, ...sha256CertFingerprints]) => ({ packageName, sha256CertFingerprints })),
      });
      showInfo("Account settings saved.");
      go("accounts");
    });
  });
  return form;
}

/** The CloudKit source field's four words as settings, or nothing when it is empty. */
function cloudKitSource(text) {
  const [url, containerID, environment, apiToken] = text.split(/\s+/).filter(Boolean);
  return url ? { url, containerID: containerID ?? "", environment: environment ?? "", apiToken: apiToken ?? "" } : undefined;
}

/** Providers' secrets (Apple's key, OpenID client secrets): stored sealed, listed by name, never shown again. */
function secretsPanel(settings, secrets, revocations) {
  const names = ["apple.privateKey", ...(settings.openIDProviders ?? []).map((p) => `openid.${p.name}.clientSecret`)];
  const stored = new Set(secrets.secrets.map((secret) => secret.name));
  const key = secrets.secretsKey.configured
    ? `Sealed with secrets key ${secrets.secretsKey.keyID}.`
    : "This server has no secrets key (--secrets-key): secrets cannot be stored.";
  const form = h("form", { id: "secret-form", class: "stack" },
    choice("secret-name", "Secret", names[0], names.map((name) => [name, name + (stored.has(name) ? " (stored)" : "")])),
    h("label", { for: "secret-value" }, "Value (Apple's .p8 file as text, or the client secret)", h("textarea", { id: "secret-value", rows: 4 })),
    h("button", { type: "submit" }, "Store secret"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(form.querySelector("button[type=submit]"), async () => {
      await admin.saveSecret(state.container, form.querySelector("#secret-name").value, form.querySelector("#secret-value").value);
      showInfo("Secret stored.");
      go("accounts");
    });
  });
  const rows = secrets.secrets.map((secret) => h("tr", {},
    h("td", {}, secret.name), h("td", {}, formatTime(secret.updated)),
    h("td", {}, h("button", { type: "button", class: "remove-secret", "data-name": secret.name, onclick: (event) =>
      run(event.target, async () => { await admin.removeSecret(state.container, secret.name); showInfo("Secret removed."); go("accounts"); }) }, "Remove"))));
  const pending = revocations.length
    ? h("p", { id: "pending-revocations", class: "muted" }, `${revocations.length} deleted account(s)' tokens still to revoke; last error: ${revocations[0].lastError ?? "none yet"}`)
    : h("p", { id: "pending-revocations", class: "muted" }, "No tokens waiting to be revoked.");
  return h("section", { id: "secrets", class: "panel stack" },
    h("h2", {}, "Provider secrets"),
    h("p", { id: "secrets-key", class: "muted" }, key),
    h("table", { id: "secret-list" }, h("tbody", {}, rows)),
    form,
    pending);
}

function templatePanel(catalog, parameters) {
  const kinds = catalog.builtIn.map((entry) => entry.kind);
  const kind = kinds.includes(parameters.kind) ? parameters.kind : kinds[0];
  const languages = catalog.languages.length ? catalog.languages : ["en"];
  const language = languages.includes(parameters.language) ? parameters.language : languages[0];
  const stored = catalog.templates.find((template) => template.kind === kind && template.language === language);
  const builtIn = catalog.builtIn.find((entry) => entry.kind === kind);
  const subject = h("input", { id: "template-subject", value: stored?.subject ?? builtIn.subject });
  const text = h("textarea", { id: "template-text", rows: 12 }, stored?.text ?? builtIn.text);
  const html = h("textarea", { id: "template-html", rows: 4, placeholder: "optional HTML alternative" }, stored?.html ?? "");
  const preview = h("div", { id: "template-preview" });
  const pick = (id, value, options, key) => {
    const select = choice(id, id === "template-kind" ? "Mail" : "Language", value, options.map((option) => [option, option]));
    select.querySelector("select").addEventListener("change", (event) => go("accounts", { kind, language, [key]: event.target.value }));
    return select;
  };
  const draft = () => ({ kind, language, subject: subject.value, text: text.value, html: html.value || undefined });
  const showPreview = (button) => run(button, async () => {
    const mail = await admin.previewMail(state.container, state.environment, draft());
    replace(preview, h("p", {}, h("strong", {}, "From: "), mail.from), h("p", {}, h("strong", {}, "Subject: "), mail.subject), h("pre", {}, mail.text));
  });
  const save = h("button", { type: "button", id: "save-template", onclick: (event) => run(event.currentTarget, async () => {
    await admin.saveMailTemplate(state.container, state.environment, kind, language, { subject: subject.value, text: text.value, html: html.value || undefined });
    showInfo(`The ${kind} mail in ${language} is saved.`);
    go("accounts", { kind, language });
  }) }, "Save template");
  const remove = stored ? h("button", { type: "button", class: "quiet", onclick: (event) => run(event.currentTarget, async () => {
    await admin.deleteMailTemplate(state.container, state.environment, kind, language);
    showInfo(`The ${kind} mail in ${language} is back to the built-in wording.`);
    go("accounts", { kind, language });
  }) }, "Use the built-in wording") : null;
  return h("section", { class: "panel stack", id: "mail-templates" },
    h("h2", {}, `Mail templates · ${state.environment}`),
    h("div", { class: "row" }, pick("template-kind", kind, kinds, "kind"), pick("template-language", language, languages, "language")),
    h("p", { class: "muted" }, stored ? "The container's own wording." : "The built-in English wording; saving makes it the container's.",
      " Placeholders: ", catalog.placeholders.map((name) => `{{${name}}}`).join(" ")),
    h("label", { for: "template-subject" }, "Subject", subject),
    h("label", { for: "template-text" }, "Text", text),
    h("label", { for: "template-html" }, "HTML", html),
    h("div", { class: "row" }, save, h("button", { type: "button", id: "preview-template", class: "quiet", onclick: (event) => showPreview(event.currentTarget) }, "Preview"), remove),
    preview);
}

function mailPanel(recent) {
  const rows = recent.mail.map((mail) => h("tr", {},
    h("td", {}, formatTime(mail.queued)),
    h("td", {}, mail.recipient),
    h("td", {}, mail.kind, h("div", { class: "muted" }, mail.subject)),
    h("td", {}, mail.status, mail.attempts > 1 ? ` (${mail.attempts} attempts)` : "", mail.lastError ? h("div", { class: "muted" }, mail.lastError) : null)));
  return h("section", { class: "panel", id: "recent-mail" },
    h("h2", {}, "Mail sent lately"),
    recent.smtpConfigured ? null : h("p", { class: "error-text" }, "No SMTP server is configured (--smtp-url): mail waits in the queue."),
    rows.length ? h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "Queued"), h("th", {}, "To"), h("th", {}, "Mail"), h("th", {}, "Outcome"))),
      h("tbody", {}, rows))) : h("p", { class: "muted" }, "No mail yet."));
}
