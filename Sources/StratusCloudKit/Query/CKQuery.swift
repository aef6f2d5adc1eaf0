import Foundation
import StratusKit

/// A query for records of one type: a predicate in CloudKit's subset of the `NSPredicate` language and an order.
///
/// ```swift
/// let query = CKQuery(recordType: "Message", predicate: NSPredicate(format: "publishedAt <= %@", Date() as CVarArg))
/// query.sortDescriptors = [NSSortDescriptor(key: "publishedAt", ascending: false)]
/// ```
open class CKQuery: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public let recordType: CKRecord.RecordType
    public let predicate: NSPredicate
    open var sortDescriptors: [NSSortDescriptor]?

    public init(recordType: CKRecord.RecordType, predicate: NSPredicate) {
        self.recordType = recordType
        self.predicate = predicate
    }

    /// The query as StratusKit runs it; `invalidArguments` for a predicate or a sort CloudKit does not support.
    func stratus() throws -> Query {
        do {
            let filter = try QueryTranslation.filter(try QueryTranslation.node(of: predicate))
            let sort = try (sortDescriptors ?? []).map(QueryTranslation.sort)
            return Query(recordType: recordType, filter: filter, sort: sort)
        } catch let error as PredicateError {
            throw CKError(.invalidArguments, userInfo: [NSLocalizedDescriptionKey: "invalid query: \(error.description)"])
        }
    }

    public static var supportsSecureCoding: Bool { true }

    /// Keeps the type and the predicate (on Linux, the format it was made from, with its arguments written in).
    public func encode(with coder: NSCoder) {
        coder.encode(recordType as NSString, forKey: "recordType")
        #if canImport(ObjectiveC)
        coder.encode(predicate, forKey: "predicate")
        #else
        coder.encode((predicate.madeFromFormat ?? "TRUEPREDICATE") as NSString, forKey: "predicateFormat")
        #endif
    }

    public required init?(coder: NSCoder) {
        guard let type = coder.decodeObject(of: NSString.self, forKey: "recordType") as String? else { return nil }
        #if canImport(ObjectiveC)
        guard let predicate = coder.decodeObject(of: NSPredicate.self, forKey: "predicate") else { return nil }
        #else
        guard let format = coder.decodeObject(of: NSString.self, forKey: "predicateFormat") as String? else { return nil }
        let predicate = NSPredicate(format: format, argumentArray: nil)
        #endif
        recordType = type
        self.predicate = predicate
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKQuery(recordType: recordType, predicate: predicate)
        copy.sortDescriptors = sortDescriptors
        return copy
    }
}

/// Orders results by distance from a location, nearest first (unless `ascending` is false).
open class CKLocationSortDescriptor: NSSortDescriptor {
    public let relativeLocation: CLLocation

    public init(key: String, relativeLocation: CLLocation) {
        self.relativeLocation = relativeLocation
        #if canImport(ObjectiveC)
        super.init(key: key, ascending: true)
        #else
        super.init(keyPath: \SortKeyStandIn.value, ascending: true)
        FormatTables.sortKeys.keep(key, for: self)
        #endif
    }

    #if canImport(ObjectiveC)
    public required init?(coder: NSCoder) {
        guard let location = coder.decodeObject(of: CLLocation.self, forKey: "relativeLocation") else { return nil }
        relativeLocation = location
        super.init(coder: coder)
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(relativeLocation, forKey: "relativeLocation")
    }
    #endif
}

/// Where the next page of a query starts (`CKQueryOperation.Cursor`).
public final class CKQueryCursor: NSObject, @unchecked Sendable {
    let stratus: Query.Cursor

    init(_ cursor: Query.Cursor) {
        stratus = cursor
    }
}

/// From CloudKit's predicates and sort descriptors to StratusKit's filter and sort.
enum QueryTranslation {
    static func node(of predicate: NSPredicate) throws -> PredicateNode {
        try PredicateReader.node(of: predicate)
    }

    static func filter(_ node: PredicateNode) throws -> Filter {
        switch node {
        case .all: return .all
        case .and(let parts): return try parts.reduce(Filter.all) { $0 && (try filter($1)) }
        case .not(.comparison(.key(let key), "IN", .value(let values))):
            return .condition("NOT_IN", try field(key), try value(values))
        case .not(.comparison(let lhs, "==", let rhs)):
            return try comparison(lhs, "!=", rhs)
        case .not:
            throw PredicateError(description: "CloudKit supports NOT only before IN and ==")
        case .comparison(let lhs, let op, let rhs):
            return try comparison(lhs, op, rhs)
        }
    }

    private static let comparators = ["==": "EQUALS", "!=": "NOT_EQUALS", "<": "LESS_THAN", "<=": "LESS_THAN_OR_EQUALS", ">": "GREATER_THAN", ">=": "GREATER_THAN_OR_EQUALS"]
    private static let flipped = ["==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="]

    private static func comparison(_ lhs: PredicateNode.Operand, _ op: String, _ rhs: PredicateNode.Operand) throws -> Filter {
        switch (lhs, op, rhs) {
        case (.tokensOfSelf, "CONTAINS", .value(let text as String)):
            // Every word of the text, in any SEARCHABLE string field.
            return .condition("CONTAINS_ALL_TOKENS", .allTokens, .string(text))
        case (.tokensOfSelf, _, _):
            throw PredicateError(description: "self takes CONTAINS with a string of words to find in the record's searchable fields")
        case (.distance(let key, let location), "<", .value(let radius)), (.distance(let key, let location), "<=", .value(let radius)):
            guard let kilometers = (radius as? NSNumber)?.doubleValue, case .location(let place)? = RecordValues.field(location) else {
                throw PredicateError(description: "distanceToLocation:fromLocation: compares a location with a number of kilometers")
            }
            return .condition("NEAR", try field(key), .location(place), distance: kilometers * 1000)
        case (.key(let key), "BEGINSWITH", .value(let prefix as String)):
            return .condition("BEGINS_WITH", try field(key), .string(prefix))
        case (.key(let key), "CONTAINS", .value(let element)):
            return .condition("LIST_CONTAINS", try field(key), try value(element))
        case (.value(let element), "IN", .key(let key)):
            return .condition("LIST_CONTAINS", try field(key), try value(element))
        case (.key(let key), "IN", .value(let values)):
            return .condition("IN", try field(key), try value(values))
        case (.key(let key), _, .value(let operand)):
            guard let comparator = comparators[op] else { break }
            return .condition(comparator, try field(key), try value(operand, forKey: key))
        case (.value, _, .key):
            guard let turned = flipped[op] else { break }
            return try comparison(rhs, turned, lhs)
        default:
            break
        }
        throw PredicateError(description: "CloudKit does not support this comparison (\(op))")
    }

    /// A key as the server names it: CloudKit's system keys become the wire's system fields.
    private static func field(_ key: String) throws -> Filter.Field {
        switch key {
        case "recordID", "recordName", "___recordID": .recordName
        case "creationDate", "___createTime": .creationDate
        case "modificationDate", "___modTime": .modificationDate
        case "creatorUserRecordID", "lastModifiedUserRecordID":
            throw PredicateError(description: "queries by \(key) are not supported")
        default: .field(key)
        }
    }

    private static func value(_ operand: Any, forKey key: String = "") throws -> FieldValue {
        if key == "recordID" || key == "recordName" {
            if let id = operand as? CKRecord.ID { return .string(id.recordName) }
            if let reference = operand as? CKRecord.Reference { return .string(reference.recordID.recordName) }
            if let record = operand as? CKRecord { return .string(record.recordID.recordName) }
        }
        if let record = operand as? CKRecord { return .reference(Record.Reference(recordID: record.recordID.stratus)) }
        if let id = operand as? CKRecord.ID { return .reference(Record.Reference(recordID: id.stratus)) }
        guard let value = RecordValues.field(operand) else {
            throw PredicateError(description: "a \(type(of: operand)) cannot be compared in a query")
        }
        return value
    }

    static func sort(_ descriptor: NSSortDescriptor) throws -> Query.Sort {
        guard let key = descriptor.key else { throw PredicateError(description: "a sort descriptor needs a key") }
        if let byDistance = descriptor as? CKLocationSortDescriptor, case .location(let place)? = RecordValues.field(byDistance.relativeLocation) {
            return .distance(from: key, to: place)
        }
        let field = try field(key)
        return descriptor.ascending ? .ascending(field) : .descending(field)
    }
}
