import Foundation
import StratusKit

/// A StratusKit filter as an `NSPredicate` in CloudKit's format language (a subscription's query read back from
/// the server), and a sort as a sort descriptor.
enum PredicateRendering {
    static func predicate(_ filter: Filter) -> NSPredicate {
        var parts: [String] = []
        var arguments: [Any] = []
        for comparison in filter.comparisons {
            let key = comparison.isSystem ? systemKey(comparison.field) : comparison.field
            let value = argument(comparison.value)
            if comparison.field == Filter.Field.allTokensName, comparison.comparator == "CONTAINS_ALL_TOKENS" {
                parts.append("self CONTAINS %@")
                arguments.append(value)
                continue
            }
            switch comparison.comparator {
            case "NOT_IN": parts.append("NOT (%K IN %@)")
            case "LIST_CONTAINS": parts.append("%K CONTAINS %@")
            case "BEGINS_WITH": parts.append("%K BEGINSWITH %@")
            case "NEAR":
                parts.append("distanceToLocation:fromLocation:(%K, %@) < %@")
                arguments += [key, value, NSNumber(value: (comparison.distance ?? 0) / 1000)]
                continue
            default: parts.append("%K \(operators[comparison.comparator] ?? "==") %@")
            }
            arguments += [key, value]
        }
        guard !parts.isEmpty else { return NSPredicate(value: true) }
        return NSPredicate(format: parts.joined(separator: " AND "), argumentArray: arguments)
    }

    static func sortDescriptor(_ sort: Query.Sort) -> NSSortDescriptor {
        let parts = sort.parts
        let key = parts.isSystem ? systemKey(parts.field) : parts.field
        if let place = parts.relativeLocation {
            return CKLocationSortDescriptor(key: key, relativeLocation: CLLocation(latitude: place.latitude, longitude: place.longitude))
        }
        return NSSortDescriptor(key: key, ascending: parts.ascending)
    }

    private static let operators = [
        "EQUALS": "==", "NOT_EQUALS": "!=", "LESS_THAN": "<", "LESS_THAN_OR_EQUALS": "<=", "GREATER_THAN": ">",
        "GREATER_THAN_OR_EQUALS": ">=", "IN": "IN",
    ]

    private static func systemKey(_ name: String) -> String {
        switch name {
        case "createdTimestamp": "creationDate"
        case "modifiedTimestamp": "modificationDate"
        default: name
        }
    }

    private static func argument(_ value: FieldValue) -> Any {
        if case .list(let elements) = value { return elements.map(argument) }
        return RecordValues.object(value) ?? NSNull()
    }
}
