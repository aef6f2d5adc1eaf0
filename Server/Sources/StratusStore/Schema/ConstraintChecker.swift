import StratusModel

/// Checks a record's values against its type's field constraints (`REQUIRED`, `NOT EMPTY`, `VALUES`,
/// `RANGE`), and lists the uniqueness checks a store must run against the records it holds.
public enum ConstraintChecker {
    /// One `UNIQUE` or `UNIQUE WHERE` check: no other live record of the type may have `field` = `key`
    /// (and, for `UNIQUE WHERE`, `condition`).
    public struct UniqueCheck: Sendable, Hashable {
        /// For `UNIQUE WHERE`: the field and value a matching record must also have.
        public struct Condition: Sendable, Hashable {
            public var field: String
            public var key: IndexEntry.Key
        }

        public var field: String
        public var key: IndexEntry.Key
        public var condition: Condition?
        /// The refusal's reason, should another record match.
        public var message: String
    }

    /// Checks the constraints that need only the record itself.
    /// - Throws: ``StorageError/Code/invalidArgument`` naming the field and the constraint.
    public static func check(_ fields: [String: FieldValue], of type: RecordTypeSchema) throws(StorageError) {
        for name in type.fields.keys.sorted() {
            let constraints = type.fields[name]!.constraints
            guard !constraints.isEmpty else { continue }
            let value = fields[name]
            if constraints.isRequired && value == nil {
                throw StorageError(.invalidArgument, "field '\(name)' of \(type.name) is REQUIRED")
            }
            if constraints.isNotEmpty && (value.map(isEmpty) ?? true) {
                throw StorageError(.invalidArgument, "field '\(name)' of \(type.name) must not be empty (NOT EMPTY)")
            }
            guard let value else { continue }
            if let allowed = constraints.allowedValues {
                for element in value.elements where !allowed.contains(where: { matches(element, $0) }) {
                    throw StorageError(.invalidArgument, "field '\(name)' of \(type.name) must be one of the VALUES \(describe(allowed))")
                }
            }
            if let minimum = constraints.minimum, let maximum = constraints.maximum {
                for element in value.elements {
                    guard let number = numericValue(element), number >= minimum && number <= maximum else {
                        throw StorageError(.invalidArgument, "field '\(name)' of \(type.name) must be within RANGE \(format(minimum))..\(format(maximum))")
                    }
                }
            }
        }
    }

    /// The uniqueness checks the record's values call for.
    public static func uniqueChecks(_ fields: [String: FieldValue], of type: RecordTypeSchema) -> [UniqueCheck] {
        var checks: [UniqueCheck] = []
        for name in type.fields.keys.sorted() {
            let constraints = type.fields[name]!.constraints
            guard let value = fields[name], let key = IndexEntry.key(for: value) else { continue }
            if constraints.isUnique {
                checks.append(UniqueCheck(field: name, key: key, condition: nil, message: "another \(type.name) already has this \(name) (UNIQUE)"))
            }
            if let condition = constraints.uniqueWhere, let conditionValue = fields[condition.field],
                matches(conditionValue, condition.value), let conditionKey = IndexEntry.key(for: conditionValue)
            {
                checks.append(UniqueCheck(
                    field: name, key: key, condition: UniqueCheck.Condition(field: condition.field, key: conditionKey),
                    message: "another \(type.name) already has this \(name) where \(condition.field) is \(describe([condition.value])) (UNIQUE WHERE)"
                ))
            }
        }
        return checks
    }

    /// Whether a value equals a schema literal.
    static func matches(_ value: FieldValue, _ literal: JSONValue) -> Bool {
        switch (value, literal) {
        case (.string(let text), .string(let other)): text == other
        case (.int64(let number), .integer(let other)), (.timestamp(let number), .integer(let other)): number == other
        case (.int64(let number), .double(let other)): Double(number) == other
        case (.double(let number), .double(let other)): number == other
        case (.double(let number), .integer(let other)): number == Double(other)
        case (.boolean(let flag), .bool(let other)): flag == other
        case (.boolean(let flag), .integer(let other)): (flag ? 1 : 0) == other
        default: false
        }
    }

    private static func isEmpty(_ value: FieldValue) -> Bool {
        switch value {
        case .string(let text): text.allSatisfy(\.isWhitespace)
        case .bytes(let data): data.isEmpty
        case .list(_, let elements): elements.isEmpty
        case .localizedString(let texts): texts.values.allSatisfy { $0.allSatisfy(\.isWhitespace) }
        default: false
        }
    }

    private static func numericValue(_ value: FieldValue) -> Double? {
        switch value {
        case .int64(let number), .timestamp(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    private static func describe(_ values: [JSONValue]) -> String {
        values.map { value in
            switch value {
            case .string(let text): "'\(text)'"
            case .bool(let flag): flag ? "TRUE" : "FALSE"
            case .integer(let number): String(number)
            case .double(let number): String(number)
            default: "?"
            }
        }.joined(separator: ", ")
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
