import StratusModel

/// The storage contract for schema, zones, records and their change feeds.
///
/// Every backend runs the same conformance suite (`StratusStoreTesting`). Operations are
/// domain-level: a backend is free to use its own strengths to answer them.
///
/// ```swift
/// let zone = DatabaseRef.privateDatabase("iCloud.com.example.App", .development, owner: user).zone("Notes")
/// let results = try await store.modifyRecords(RecordBatch(zone: zone, operations: [
///     RecordOperation(type: .create, recordName: "n1", recordType: "Note", fields: ["title": FieldInput(value: .string("Hi"))]),
/// ], atomic: true, caller: Caller(userRecordName: user), timestamp: now))
/// ```
public protocol RecordStore: Sendable {
    /// How many live records each of `users` has in a container environment: records they created in the
    /// public database (besides their `Users` record), and records in their private database.
    func recordCounts(of users: [String], containerID: String, environment: Environment) async throws -> [String: UserRecordCounts]

    /// Each live zone of `database` with its live records by type and when a record in it last changed, for
    /// operators looking into one user's data.
    func zoneSummaries(in database: DatabaseRef) async throws -> [ZoneSummary]

    /// How many live records of a type a container environment holds, in every database; with `field`,
    /// only those that have a value for it. Operators see this before removing a type or a field.
    func recordCount(ofType recordType: String, holding field: String?, containerID: String, environment: Environment) async throws -> Int

    /// The schema of a container environment.
    func schema(containerID: String, environment: Environment) async throws -> Schema

    /// Changes a container's development and production schemas in one transaction.
    ///
    /// The backend reads both schemas, counts in the same transaction the records `counting` asks about for
    /// them, and calls `change` with the schemas and the counts; `change` may modify either schema. It stores what
    /// `change` made, indexes the records a new index covers (``IndexBuildChange``), and removes what the change
    /// took out (``SchemaRemovals``), all in that transaction. When `change` throws, nothing changes.
    ///
    /// - Throws: whatever `change` throws, as a ``StorageError``.
    func changeSchemas<T: Sendable>(
        containerID: String,
        counting: @escaping @Sendable (_ development: Schema, _ production: Schema) -> Set<RecordCountRequest>,
        _ change: @escaping @Sendable (_ development: inout Schema, _ production: inout Schema, _ counts: [RecordCountRequest: Int]) throws -> T
    ) async throws -> T

    /// `Type.field` of the indexes declared on types that held records and still being built over them;
    /// queries that need them must wait.
    func indexesBeingBuilt(containerID: String, environment: Environment) async throws -> Set<String>

    /// Every live zone of a database; the default zone always appears.
    func zones(in database: DatabaseRef) async throws -> [ZoneInfo]
    /// The named zones that exist, keyed by name.
    func lookupZones(_ zoneNames: [String], in database: DatabaseRef) async throws -> [String: ZoneInfo]
    /// Creates and deletes zones; deleting a zone deletes its records.
    func modifyZones(_ operations: [ZoneOperation], in database: DatabaseRef) async throws -> [ZoneOperationResult]

    /// Applies a batch of record operations, one result per operation in order.
    ///
    /// In development, unknown record types and fields are added to the schema; in production they
    /// fail the operation.
    /// - Throws: ``StorageError/Code/zoneNotFound`` when the zone does not exist.
    func modifyRecords(_ batch: RecordBatch) async throws -> [RecordOperationResult]
    /// The named records of a zone that exist, keyed by name.
    func lookupRecords(_ recordNames: [String], in zone: ZoneRef) async throws -> [String: Record]
    /// One page of a query. The store plans it once (``planQuery(_:)``); backends do not implement this.
    /// - Throws: ``StorageError/Code/invalidArgument`` for a filter that does not fit the schema.
    func queryRecords(_ query: RecordQuery) async throws -> QueryPage
    /// Reads one page of a planned query: the backend's statement of the plan, in one read.
    /// - Throws: ``StorageError/Code/zoneNotFound`` when the query's zone does not exist.
    func runQuery(_ query: PlannedQuery) async throws -> QueryPage

    /// Zones of a database that changed since a token.
    func databaseChanges(in database: DatabaseRef, since syncToken: String?, limit: Int) async throws -> DatabaseChanges
    /// Records of a zone that changed since a token, in commit order.
    /// - Throws: ``StorageError/Code/zoneNotFound``; ``StorageError/Code/invalidArgument`` for a token of another zone.
    func zoneChanges(_ query: ZoneChangesQuery) async throws -> ZoneChanges
}

/// Everything a Stratus server needs from storage.
public typealias Store = AccountStore & RoleStore & ServerKeyStore & RecordStore & AssetStore & SubscriptionStore & MailStore & SecretStore & WebhookStore & FunctionStore & JobStore & UsageStore & TelemetryStore & OperatorStore
    & NotificationStore & ShareStore & EventStore & TransferStore

/// A user's live records in one container environment.
public struct UserRecordCounts: Sendable, Hashable {
    /// Records they created in the public database, besides their `Users` record.
    public var publicRecords: Int
    /// Records in their private database.
    public var privateRecords: Int

    public init(publicRecords: Int = 0, privateRecords: Int = 0) {
        self.publicRecords = publicRecords
        self.privateRecords = privateRecords
    }
}
