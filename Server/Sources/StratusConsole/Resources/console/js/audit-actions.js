// The audit log's actions ("PUT /admin/1/iCloud.com.example.App/development/schema") as sentences a person reads
// ("Changed the development schema"). Each pattern names the path under /admin/1/ with :parts standing for its
// segments (decoded); an action no pattern knows reads as its method and decoded path.

const adminActions = [
  ["POST containers", () => "Created a container"],
  ["POST session", () => "Signed in to the console"],
  ["POST admin-key/rotate", () => "Rotated the admin key"],
  ["DELETE admin-key", () => "Turned the admin key off"],
  ["POST backups", () => "Started a backup"],
  ["POST secrets/reseal", () => "Resealed the stored secrets with the current secrets key"],
  ["POST usage/measure", () => "Measured storage"],
  ["PUT quotas", () => "Changed the default quotas"],
  ["POST operators", () => "Added an operator"],
  ["PUT operators/:operator", (p) => `Changed operator ${p.operator}`],
  ["DELETE operators/:operator", (p) => `Deleted operator ${p.operator}`],
  ["POST operators/:operator/reset", (p) => `Reset operator ${p.operator}'s password and authenticator`],
  ["PUT :container/:environment/schema", (p) => `Changed the ${p.environment} schema`],
  ["POST :container/deploy", () => "Deployed the schema to production"],
  ["POST :container/token", () => "Rotated the API token"],
  ["POST :container/keys", () => "Added a server-to-server key"],
  ["DELETE :container/keys/:key", (p) => `Revoked server-to-server key ${p.key}`],
  ["PUT :container/quotas", () => "Changed the container's quotas"],
  ["PUT :container/accounts/settings", () => "Changed the account settings"],
  ["POST :container/accounts/import", () => "Imported accounts"],
  ["PUT :container/secrets/:name", (p) => `Set the secret ${p.name}`],
  ["DELETE :container/secrets/:name", (p) => `Removed the secret ${p.name}`],
  ["PUT :container/transfers/:transfer", (p) => `Reported transfer ${p.transfer}`],
  ["POST :container/:environment/records/import", (p) => `Imported records (${p.environment})`],
  ["PUT :container/:environment/users/:user/roles", (p) => `Changed the roles of ${p.user} (${p.environment})`],
  ["POST :container/:environment/users/:user/disable", (p) => `Disabled ${p.user}`],
  ["POST :container/:environment/users/:user/enable", (p) => `Enabled ${p.user}`],
  ["POST :container/:environment/users/:user/reset", (p) => `Sent ${p.user} a password reset`],
  ["POST :container/:environment/users/:user/sessions/end", (p) => `Signed ${p.user} out everywhere`],
  ["POST :container/:environment/users/:user/second-factors/remove", (p) => `Removed ${p.user}'s second factors`],
  ["DELETE :container/:environment/users/:user", (p) => `Deleted ${p.user}`],
  ["PUT :container/:environment/mail/templates/:kind/:language", (p) => `Changed the ${p.kind} mail (${p.language}, ${p.environment})`],
  ["DELETE :container/:environment/mail/templates/:kind/:language", (p) => `Restored the built-in ${p.kind} mail (${p.language}, ${p.environment})`],
  ["POST :container/:environment/mail/preview", () => "Previewed a mail"],
  ["POST :container/:environment/webhooks", (p) => `Added a webhook (${p.environment})`],
  ["PUT :container/webhooks/:webhook", (p) => `Changed webhook ${p.webhook}`],
  ["DELETE :container/webhooks/:webhook", (p) => `Deleted webhook ${p.webhook}`],
  ["POST :container/webhooks/:webhook/secret/rotate", (p) => `Rotated webhook ${p.webhook}'s signing secret`],
  ["POST :container/webhooks/:webhook/secret/drop-previous", (p) => `Dropped webhook ${p.webhook}'s previous secret`],
  ["POST :container/webhooks/:webhook/replay", (p) => `Replayed webhook ${p.webhook}'s events`],
  ["POST :container/webhooks/:webhook/deliveries/:delivery/retry", (p) => `Retried delivery ${p.delivery} of webhook ${p.webhook}`],
  ["PUT :container/:environment/functions/modules/:module", (p) => `Uploaded the module ${p.module} (${p.environment})`],
  ["DELETE :container/:environment/functions/modules/:module", (p) => `Removed the module ${p.module} (${p.environment})`],
  ["PUT :container/:environment/functions/:function", (p) => `Saved the function ${p.function} (${p.environment})`],
  ["DELETE :container/:environment/functions/:function", (p) => `Removed the function ${p.function} (${p.environment})`],
  ["PUT :container/:environment/jobs/:job", (p) => `Saved the job ${p.job} (${p.environment})`],
  ["DELETE :container/:environment/jobs/:job", (p) => `Removed the job ${p.job} (${p.environment})`],
].map(([pattern, describe]) => {
  const [method, path] = pattern.split(" ");
  return { method, segments: path.split("/"), describe };
});

/** Names for the database API's operations an operator's write goes through. */
const databaseOperations = {
  "records/modify": "Changed records", "records/import": "Imported records", "zones/modify": "Changed zones",
  "subscriptions/modify": "Changed subscriptions", "assets/upload": "Uploaded an asset", "assets/rereference": "Re-referenced assets",
};

function decode(segment) {
  try { return decodeURIComponent(segment); } catch { return segment; }
}

/** The action as a sentence, or its method and decoded path. */
export function describeAction(action) {
  const [method, rawPath = ""] = action.split(" ");
  const path = rawPath.split("?")[0];
  const segments = path.split("/").filter(Boolean).map(decode);
  if (segments[0] === "admin" && segments[1] === "1") {
    const rest = segments.slice(2);
    for (const known of adminActions) {
      if (known.method !== method || known.segments.length !== rest.length) continue;
      const parts = {};
      if (known.segments.every((segment, index) => segment.startsWith(":") ? (parts[segment.slice(1)] = rest[index], true) : segment === rest[index])) {
        return known.describe(parts);
      }
    }
  }
  if (segments[0] === "database" && segments.length >= 6) {
    const [, , , environment, database, ...operation] = segments;
    const name = operation.join("/");
    return `${databaseOperations[name] ?? name} in the ${database} database (${environment})`;
  }
  return `${method} /${segments.join("/")}`;
}
