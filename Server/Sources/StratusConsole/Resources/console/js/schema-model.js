// The schema as the admin API answers it with ?format=json, and words for showing it.

export const scalarTypes = ["STRING", "LOCALIZED_STRING", "INT64", "DOUBLE", "BOOLEAN", "TIMESTAMP", "REFERENCE", "ASSETID", "LOCATION", "BYTES"];
export const typeNames = {
  STRING: "String", LOCALIZED_STRING: "Localized string", INT64: "Int(64)", DOUBLE: "Double", BOOLEAN: "Boolean",
  TIMESTAMP: "Date/Time", REFERENCE: "Reference", ASSETID: "Asset", LOCATION: "Location", BYTES: "Bytes",
};
export const indexFlags = { QUERYABLE: 1, SORTABLE: 2, SEARCHABLE: 4 };
export const permissions = ["CREATE", "READ", "WRITE"];
export const builtInRoles = { _world: "World (everyone)", _icloud: "Authenticated", _creator: "Creator" };

/** "STRING_LIST" → {scalar: "STRING", isList: true}. */
export function splitType(type) {
  return type.endsWith("_LIST") ? { scalar: type.slice(0, -5), isList: true } : { scalar: type, isList: false };
}

export function typeLabel(type) {
  const { scalar, isList } = splitType(type);
  return isList ? `List of ${typeNames[scalar] ?? scalar}` : typeNames[scalar] ?? scalar;
}

export function indexLabels(indexes) {
  return Object.entries(indexFlags).filter(([, bit]) => (indexes & bit) !== 0).map(([name]) => name);
}

export function roleLabel(role) {
  return builtInRoles[role] ?? role;
}

/** Constraint descriptions: ["REQUIRED", "UNIQUE WHERE isCurrent = true"]. */
export function constraintLabels(constraints = {}) {
  const labels = [];
  if (constraints.isRequired) labels.push("REQUIRED");
  if (constraints.isNotEmpty) labels.push("NOT EMPTY");
  if (constraints.isUnique) labels.push("UNIQUE");
  if (constraints.uniqueWhere) labels.push(`UNIQUE WHERE ${constraints.uniqueWhere.field} = ${JSON.stringify(constraints.uniqueWhere.value)}`);
  if (constraints.allowedValues) labels.push(`VALUES (${constraints.allowedValues.map((v) => JSON.stringify(v)).join(", ")})`);
  if (constraints.minimum !== undefined) labels.push(`MIN ${constraints.minimum}`);
  if (constraints.maximum !== undefined) labels.push(`MAX ${constraints.maximum}`);
  return labels;
}

/** A field with no options. */
export function newField(type = "STRING") {
  return { type, indexes: 0, isEncrypted: false, constraints: { isRequired: false, isNotEmpty: false, isUnique: false } };
}

/** Text typed for a value ("true", "3", "hello") as the JSON value it means. */
export function parseValue(text) {
  const trimmed = text.trim();
  if (trimmed === "true" || trimmed === "TRUE") return true;
  if (trimmed === "false" || trimmed === "FALSE") return false;
  if (trimmed !== "" && !Number.isNaN(Number(trimmed))) return Number(trimmed);
  return trimmed.replace(/^'(.*)'$/, "$1");
}

/** The user-defined fields of a type, by name (system fields such as ___recordID stay out). */
export function userFields(recordType) {
  return Object.entries(recordType.fields ?? {}).filter(([name]) => !name.startsWith("___")).sort(([a], [b]) => a.localeCompare(b));
}
