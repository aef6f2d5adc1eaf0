// Talks to the server: the admin API and the CloudKit endpoints, with the console session's CSRF token.

/** An error the server answered, with CloudKit's serverErrorCode and reason. */
export class ServerError extends Error {
  constructor(status, body) {
    super(body?.reason ?? `The server answered ${status}`);
    this.status = status;
    this.serverErrorCode = body?.serverErrorCode ?? `HTTP ${status}`;
    this.reason = body?.reason ?? this.message;
    this.body = body;
  }
}

let csrfToken = null;

export function setCSRFToken(token) {
  csrfToken = token;
}

/** Sends a request; answers the parsed JSON (or text), or throws a ServerError. */
export async function request(method, path, { json, text, body, headers = {}, accept } = {}) {
  const init = { method, headers: { ...headers }, credentials: "same-origin" };
  if (csrfToken) init.headers["X-Stratus-CSRF"] = csrfToken;
  if (json !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  } else if (text !== undefined) {
    init.headers["Content-Type"] = "text/plain; charset=utf-8";
    init.body = text;
  } else if (body !== undefined) {
    init.body = body;
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ServerError(0, { serverErrorCode: "NETWORK_FAILURE", reason: `The server could not be reached (${error.message}).` });
  }
  const type = response.headers.get("Content-Type") ?? "";
  const payload = type.includes("json") ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) {
    if (response.status === 401 && onSignedOut && !path.endsWith("/admin/1/session") && !path.includes("/operators/enrolment")) onSignedOut();
    throw new ServerError(response.status, typeof payload === "object" ? payload : { reason: payload || response.statusText });
  }
  return payload;
}

let onSignedOut = null;

/** Called when the server says the session has ended. */
export function whenSignedOut(callback) {
  onSignedOut = callback;
}

export const admin = {
  signIn: (adminKey) => request("POST", "/admin/1/session", { json: { adminKey } }),
  signInAsOperator: (emailAddress, password, code) => request("POST", "/admin/1/session", { json: { emailAddress, password, code } }),
  beginEnrolment: (emailAddress, password) => request("POST", "/admin/1/operators/enrolment", { json: { emailAddress, password } }),
  confirmEnrolment: (emailAddress, password, code) => request("POST", "/admin/1/operators/enrolment/confirm", { json: { emailAddress, password, code } }),
  adminKey: () => request("GET", "/admin/1/admin-key"),
  rotateAdminKey: () => request("POST", "/admin/1/admin-key/rotate"),
  turnOffAdminKey: () => request("DELETE", "/admin/1/admin-key"),
  operators: () => request("GET", "/admin/1/operators"),
  createOperator: (settings) => request("POST", "/admin/1/operators", { json: settings }),
  updateOperator: (id, settings) => request("PUT", `/admin/1/operators/${enc(id)}`, { json: settings }),
  resetOperator: (id, password) => request("POST", `/admin/1/operators/${enc(id)}/reset`, { json: { password } }),
  deleteOperator: (id) => request("DELETE", `/admin/1/operators/${enc(id)}`),
  audit: (query) => request("GET", `/admin/1/audit?${new URLSearchParams(query)}`),
  session: () => request("GET", "/admin/1/session"),
  signOut: () => request("DELETE", "/admin/1/session"),
  containers: () => request("GET", "/admin/1/containers"),
  overview: () => request("GET", "/admin/1/overview"),
  createContainer: (containerID) => request("POST", "/admin/1/containers", { json: { containerID } }),
  rotateToken: (container) => request("POST", `/admin/1/${enc(container)}/token`, { json: {} }),
  keys: (container) => request("GET", `/admin/1/${enc(container)}/keys`),
  addKey: (container, publicKey, role) => request("POST", `/admin/1/${enc(container)}/keys`, { json: role ? { publicKey, role } : { publicKey } }),
  revokeKey: (container, keyID) => request("DELETE", `/admin/1/${enc(container)}/keys/${enc(keyID)}`),
  schema: (container, environment) => request("GET", `/admin/1/${enc(container)}/${environment}/schema?format=json`),
  schemaText: (container, environment) => request("GET", `/admin/1/${enc(container)}/${environment}/schema`),
  saveSchema: (container, schema, force = false) =>
    request("PUT", `/admin/1/${enc(container)}/development/schema${force ? "?force=true" : ""}`, { json: schema }),
  saveSchemaText: (container, text, force = false) =>
    request("PUT", `/admin/1/${enc(container)}/development/schema${force ? "?force=true" : ""}`, { text }),
  deployPreview: (container) => request("GET", `/admin/1/${enc(container)}/deploy`),
  deploy: (container, dryRun = false) => request("POST", `/admin/1/${enc(container)}/deploy`, { json: { dryRun } }),
  users: (container, environment, { search, offset }) =>
    request("GET", `/admin/1/${enc(container)}/${environment}/users?` + new URLSearchParams({ search: search ?? "", offset: String(offset ?? 0), limit: "25" })),
  setRoles: (container, environment, user, roles) =>
    request("PUT", `/admin/1/${enc(container)}/${environment}/users/${enc(user)}/roles`, { json: { roles } }),
  userAction: (container, environment, user, action) =>
    request("POST", `/admin/1/${enc(container)}/${environment}/users/${enc(user)}/${action}`, { json: {} }),
  deleteUser: (container, environment, user) => request("DELETE", `/admin/1/${enc(container)}/${environment}/users/${enc(user)}`),
  accountSettings: (container) => request("GET", `/admin/1/${enc(container)}/accounts/settings`),
  signInMethodCounts: (container) => request("GET", `/admin/1/${enc(container)}/accounts/sign-in-methods`),
  saveAccountSettings: (container, settings) => request("PUT", `/admin/1/${enc(container)}/accounts/settings`, { json: settings }),
  secrets: (container) => request("GET", `/admin/1/${enc(container)}/secrets`),
  saveSecret: (container, name, value) => request("PUT", `/admin/1/${enc(container)}/secrets/${enc(name)}`, { json: { value } }),
  removeSecret: (container, name) => request("DELETE", `/admin/1/${enc(container)}/secrets/${enc(name)}`),
  revocations: (container) => request("GET", `/admin/1/${enc(container)}/accounts/revocations`),
  webhooks: (container) => request("GET", `/admin/1/${enc(container)}/webhooks`),
  createWebhook: (container, environment, settings) => request("POST", `/admin/1/${enc(container)}/${environment}/webhooks`, { json: settings }),
  updateWebhook: (container, id, settings) => request("PUT", `/admin/1/${enc(container)}/webhooks/${enc(id)}`, { json: settings }),
  deleteWebhook: (container, id) => request("DELETE", `/admin/1/${enc(container)}/webhooks/${enc(id)}`),
  webhookDeliveries: (container, id) => request("GET", `/admin/1/${enc(container)}/webhooks/${enc(id)}/deliveries?limit=50`),
  retryWebhookDelivery: (container, id, delivery) => request("POST", `/admin/1/${enc(container)}/webhooks/${enc(id)}/deliveries/${delivery}/retry`),
  replayWebhook: (container, id, since) => request("POST", `/admin/1/${enc(container)}/webhooks/${enc(id)}/replay`, { json: { since } }),
  functions: (container) => request("GET", `/admin/1/${enc(container)}/functions`),
  uploadModule: (container, environment, name, file) =>
    request("PUT", `/admin/1/${enc(container)}/${environment}/functions/modules/${enc(name)}`, { body: file, headers: { "Content-Type": "application/wasm" } }),
  deleteModule: (container, environment, name) => request("DELETE", `/admin/1/${enc(container)}/${environment}/functions/modules/${enc(name)}`),
  saveFunction: (container, environment, name, settings) =>
    request("PUT", `/admin/1/${enc(container)}/${environment}/functions/${enc(name)}`, { json: settings }),
  deleteFunction: (container, environment, name) => request("DELETE", `/admin/1/${enc(container)}/${environment}/functions/${enc(name)}`),
  userOverview: (container, environment, user) => request("GET", `/admin/1/${enc(container)}/${environment}/users/${enc(user)}/overview`),
  telemetry: (container, environment, range) => request("GET", `/admin/1/${enc(container)}/${environment}/telemetry?range=${range}`),
  requestLog: (container, query) => request("GET", `/admin/1/${enc(container)}/logs?${new URLSearchParams(query)}`),
  quotas: () => request("GET", "/admin/1/quotas"),
  setDefaultQuotas: (values) => request("PUT", "/admin/1/quotas", { json: values }),
  setQuotas: (container, values) => request("PUT", `/admin/1/${enc(container)}/quotas`, { json: values }),
  usage: (container, limit = 20) => request("GET", `/admin/1/${enc(container)}/usage?limit=${limit}`),
  measureUsage: () => request("POST", "/admin/1/usage/measure"),
  jobs: (container) => request("GET", `/admin/1/${enc(container)}/jobs`),
  saveJob: (container, environment, name, settings) => request("PUT", `/admin/1/${enc(container)}/${environment}/jobs/${enc(name)}`, { json: settings }),
  deleteJob: (container, environment, name) => request("DELETE", `/admin/1/${enc(container)}/${environment}/jobs/${enc(name)}`),
  mailTemplates: (container, environment) => request("GET", `/admin/1/${enc(container)}/${environment}/mail/templates`),
  saveMailTemplate: (container, environment, kind, language, template) =>
    request("PUT", `/admin/1/${enc(container)}/${environment}/mail/templates/${enc(kind)}/${enc(language)}`, { json: template }),
  deleteMailTemplate: (container, environment, kind, language) =>
    request("DELETE", `/admin/1/${enc(container)}/${environment}/mail/templates/${enc(kind)}/${enc(language)}`),
  previewMail: (container, environment, draft) => request("POST", `/admin/1/${enc(container)}/${environment}/mail/preview`, { json: draft }),
  recentMail: (container) => request("GET", `/admin/1/${enc(container)}/mail?limit=50`),
  transfers: (container) => request("GET", `/admin/1/${enc(container)}/transfers`),
  subscriptions: (container, environment, database) =>
    request("GET", `/admin/1/${enc(container)}/${environment}/subscriptions?database=${database}`),
  activity: (after) => request("GET", `/admin/1/activity?after=${after}`),
  backups: () => request("GET", "/admin/1/backups"),
  startBackup: () => request("POST", "/admin/1/backups"),
};

/** A CloudKit Web Services call as the operator: in the public database, or a user's private one. */
export function cloudKit(container, environment, database, operation, { json, user, method = "POST" } = {}) {
  const headers = user ? { "X-Stratus-User": user } : {};
  const path = `/database/1/${enc(container)}/${environment}/${database}/${operation}`;
  return request(method, path, method === "GET" ? { headers } : { json: json ?? {}, headers });
}

/** Uploads a file for an asset field; answers the value to save in the field. */
export async function uploadAsset(target, { recordType, fieldName, recordName }, file) {
  const { container, environment, database, user, zoneID } = target;
  const tokens = await cloudKit(container, environment, database, "assets/upload", {
    json: { zoneID, tokens: [{ recordType, fieldName, recordName }] }, user,
  });
  const url = tokens.tokens?.[0]?.url;
  if (!url) throw new ServerError(500, { reason: "The server gave no upload URL." });
  const uploaded = await request("POST", url, { body: file, headers: { "Content-Type": file.type || "application/octet-stream" } });
  return uploaded.singleFile;
}

function enc(text) {
  return encodeURIComponent(text);
}
