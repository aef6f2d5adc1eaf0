import Foundation
import StratusModel
import StratusStore

/// The subscriptions of every database, indexed so that a record change is tested only against the
/// subscriptions that could match it: by database, record type or zone, and a query's first `EQUALS`
/// filter on a field. A write that concerns none of 10,000 subscriptions costs a few dictionary lookups.
package struct SubscriptionIndex: Sendable {
    /// One subscription, parsed.
    package struct Entry: Sendable {
        package var stored: StoredSubscription
        package var input: SubscriptionInput
        package var triggers: Set<SubscriptionInput.Trigger>
        /// Custom roles of the owner, for the public database's read permissions.
        package var roles: Set<String>

        package var key: EntryKey { EntryKey(database: stored.database, owner: stored.owner, id: stored.id) }

        package init(stored: StoredSubscription, input: SubscriptionInput, triggers: Set<SubscriptionInput.Trigger>, roles: Set<String>) {
            self.stored = stored
            self.input = input
            self.triggers = triggers
            self.roles = roles
        }
    }

    package struct EntryKey: Hashable, Sendable {
        package var database: DatabaseRef
        package var owner: String
        package var id: String

        package init(database: DatabaseRef, owner: String, id: String) {
            self.database = database
            self.owner = owner
            self.id = id
        }
    }

    /// A field value a query subscription requires (its first EQUALS filter).
    package struct Equality: Hashable, Sendable {
        package var field: String
        package var key: IndexEntry.Key
    }

    /// The subscriptions of one database.
    package struct Bucket: Sendable {
        /// Query subscriptions by record type, then by required value; `nil` holds those without one.
        package var queries: [String: [Equality?: Set<EntryKey>]] = [:]
        package var zones: [String: Set<EntryKey>] = [:]
        package var databases: Set<EntryKey> = []
    }

    private(set) var entries: [EntryKey: Entry] = [:]
    private var buckets: [DatabaseRef: Bucket] = [:]

    package var count: Int { entries.count }

    package mutating func insert(_ stored: StoredSubscription, roles: Set<String>) {
        guard let input = try? JSONDecoder().decode(SubscriptionInput.self, from: Data(stored.body.utf8)), let kind = input.subscriptionType else { return }
        let entry = Entry(stored: stored, input: input, triggers: Set(input.firesOn ?? SubscriptionInput.Trigger.allCases), roles: roles)
        remove(entry.key)
        entries[entry.key] = entry
        var bucket = buckets[stored.database] ?? Bucket()
        switch kind {
        case .query:
            guard let query = input.query else { return }
            bucket.queries[query.recordType, default: [:]][Self.equality(of: query), default: []].insert(entry.key)
        case .zone:
            bucket.zones[input.zoneID?.zoneName ?? "", default: []].insert(entry.key)
        case .database:
            bucket.databases.insert(entry.key)
        }
        buckets[stored.database] = bucket
    }

    package mutating func remove(_ key: EntryKey) {
        guard let entry = entries.removeValue(forKey: key), var bucket = buckets[key.database] else { return }
        switch entry.input.subscriptionType {
        case .query?:
            if let query = entry.input.query {
                bucket.queries[query.recordType]?[Self.equality(of: query)]?.remove(key)
            }
        case .zone?: bucket.zones[entry.input.zoneID?.zoneName ?? ""]?.remove(key)
        case .database?: bucket.databases.remove(key)
        case nil: break
        }
        buckets[key.database] = bucket
    }

    /// The subscriptions a change in `zone` to `record` may concern, before filters and permissions: those of
    /// the zone's database, or of `database` (a participant's shared database) when given.
    package func candidates(zone: ZoneRef, record: Record, fields: [String: FieldValue], in database: DatabaseRef? = nil) -> [Entry] {
        guard let bucket = buckets[database ?? zone.database] else { return [] }
        var keys = Set<EntryKey>()
        if let byValue = bucket.queries[record.recordType] {
            keys.formUnion(byValue[nil] ?? [])
            for (name, value) in fields {
                guard let key = IndexEntry.key(for: value), let matching = byValue[Equality(field: name, key: Self.normalized(key))] else { continue }
                keys.formUnion(matching)
            }
        }
        keys.formUnion(bucket.zones[zone.zoneName] ?? [])
        keys.formUnion(bucket.databases)
        return keys.compactMap { entries[$0] }
    }

    /// The first `EQUALS` filter on a regular field, as the key stores compare it.
    private static func equality(of query: QueryInput) -> Equality? {
        for filter in query.filterBy ?? [] where filter.comparator == Comparator.equals.rawValue {
            guard let field = filter.fieldName, !field.hasPrefix("___"), !field.contains("."), let input = filter.fieldValue,
                let type = input.type.flatMap(FieldType.init(wireName:)) ?? FieldValue.inferredType(of: input.value),
                let value = try? FieldValue(json: input.value, as: type), let key = IndexEntry.key(for: value)
            else { continue }
            return Equality(field: field, key: normalized(key))
        }
        return nil
    }

    /// Numbers as doubles, so that a filter's `1` finds a DOUBLE field's `1.0`. Two large integers may share
    /// a double: that only adds a candidate, which the full match then rejects.
    private static func normalized(_ key: IndexEntry.Key) -> IndexEntry.Key {
        if case .integer(let number) = key { return .double(Double(number)) }
        return key
    }

    package init() {}
}
