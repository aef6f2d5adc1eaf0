import Foundation

#if !canImport(ObjectiveC)
// Linux's Foundation has no `NSPredicate(format:)` and no `NSSortDescriptor(key:ascending:)` (it has no key-value
// coding): these add them, with Foundation's names, so that the same source compiles; a CloudKit query reads what
// they were made from.

extension NSPredicate {
    /// A predicate in the `NSPredicate` format language, as a CloudKit query takes it.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        self.init(block: { _, _ in false })
        let parsed = Result { try PredicateParser.parse(predicateFormat, arguments: arguments ?? []) }.mapError { $0 as! PredicateError }
        FormatTables.predicates.keep((predicateFormat, parsed), for: self)
    }

    public convenience init(format predicateFormat: String, _ arguments: any CVarArg...) {
        self.init(format: predicateFormat, argumentArray: arguments)
    }

    /// The predicate parsed from its format, when it was made from one here.
    var parsedFormat: Result<PredicateNode, PredicateError>? { FormatTables.predicates.value(for: self)?.parsed }

    /// The format the predicate was made from here.
    var madeFromFormat: String? { FormatTables.predicates.value(for: self)?.format }
}

extension NSSortDescriptor {
    /// A sort by a record's field, as a CloudKit query takes it.
    public convenience init(key: String?, ascending: Bool) {
        self.init(keyPath: \SortKeyStandIn.value, ascending: ascending)
        FormatTables.sortKeys.keep(key, for: self)
    }

    /// The field a sort made with ``init(key:ascending:)`` orders by.
    public var key: String? { FormatTables.sortKeys.value(for: self) ?? nil }
}

/// The key path Linux's sort descriptors require; the field's name is kept beside the descriptor.
final class SortKeyStandIn: NSObject {
    var value = 0
}

/// What Linux's Foundation classes cannot hold (a predicate's parsed format, a sort's key), kept beside each
/// instance for as long as it lives.
final class FormatTable<Value>: @unchecked Sendable {
    private struct Entry {
        weak var owner: AnyObject?
        var value: Value
    }

    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    func keep(_ value: Value, for owner: AnyObject) {
        lock.withLock {
            if entries.count > 64 { entries = entries.filter { $0.value.owner != nil } }
            entries[ObjectIdentifier(owner)] = Entry(owner: owner, value: value)
        }
    }

    func value(for owner: AnyObject) -> Value? {
        lock.withLock {
            guard let entry = entries[ObjectIdentifier(owner)], entry.owner === owner else { return nil }
            return entry.value
        }
    }
}

enum FormatTables {
    static let predicates = FormatTable<(format: String, parsed: Result<PredicateNode, PredicateError>)>()
    static let sortKeys = FormatTable<String?>()
}

// Values a predicate's `%@` takes, which Linux's Foundation does not let through `CVarArg...` (only the predicate
// reads them; they are never handed to C).
extension Date: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { timeIntervalSinceReferenceDate._cVarArgEncoding }
}

extension Array: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [count] }
}

extension NSNumber: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { doubleValue._cVarArgEncoding }
}

extension NSArray: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { [count] }
}

extension NSDate: @retroactive CVarArg {
    public var _cVarArgEncoding: [Int] { timeIntervalSinceReferenceDate._cVarArgEncoding }
}

extension CKRecord: CVarArg {
    public var _cVarArgEncoding: [Int] { [hash] }
}

extension CKRecordID: CVarArg {
    public var _cVarArgEncoding: [Int] { [hash] }
}

extension CKReference: CVarArg {
    public var _cVarArgEncoding: [Int] { [hash] }
}

extension CLLocation: CVarArg {
    public var _cVarArgEncoding: [Int] { [hash] }
}
#endif
