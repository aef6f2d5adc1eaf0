internal import StratusModel

extension Query {
    /// The `query` dictionary of `records/query` and of query subscriptions.
    var wire: JSONValue {
        var object: [String: JSONValue] = ["recordType": .string(recordType)]
        if !filter.conditions.isEmpty {
            object["filterBy"] = .array(filter.conditions.map { condition in
                var filter: [String: JSONValue] = [
                    "comparator": .string(condition.comparator),
                    condition.field.isSystem ? "systemFieldName" : "fieldName": .string(condition.field.name),
                    "fieldValue": condition.value.wireEntry,
                ]
                if let distance = condition.distance { filter["distance"] = .double(distance) }
                return .object(filter)
            })
        }
        if !sort.isEmpty {
            object["sortBy"] = .array(sort.map { descriptor in
                var sort: [String: JSONValue] = [
                    descriptor.field.isSystem ? "systemFieldName" : "fieldName": .string(descriptor.field.name),
                    "ascending": .bool(descriptor.ascending),
                ]
                if let location = descriptor.relativeLocation { sort["relativeLocation"] = FieldValue.location(location).wireEntry }
                return .object(sort)
            })
        }
        return .object(object)
    }
}
