import StratusModel
import StratusStore
import Testing

/// One clause of the storage contract, checked against a fresh store.
public struct ConformanceCase: Sendable, CustomStringConvertible {
    public let name: String
    public let run: @Sendable (any Store) async throws -> Void

    public init(_ name: String, run: @escaping @Sendable (any Store) async throws -> Void) {
        self.name = name
        self.run = run
    }

    public var description: String { name }
}

/// The conformance suite every store backend runs.
///
/// ```swift
/// @Test(arguments: StoreConformance.cases)
/// func conformance(_ check: ConformanceCase) async throws {
///     try await check.run(try makeStore())
/// }
/// ```
public enum StoreConformance {
    /// Every case.
    public static var cases: [ConformanceCase] {
        recordCases + schemaCases + referenceCases + zoneCases + syncCases + queryCases + accountCases + constraintCases
            + assetCases + sharingCases + operatorCases + orderingCases + concurrentSyncCases + eventCases + sqlTableCases
            + accountLifecycleCases + accountDeletionCases + passkeyCases + identityCases + secretCases + cloudKitClaimCases + webhookCases + functionCases
            + usageCases + telemetryCases + peopleCases
    }
}

/// Names and helpers shared by the cases.
enum Fixture {
    static let container = "iCloud.test.Conformance"
    static let alice = "_a11ce000000000000000000000000000"
    static let bob = "_b0b00000000000000000000000000000"
    static let now: Int64 = 1_700_000_000_000

    static func privateDB(_ owner: String = alice, _ environment: Environment = .development) -> DatabaseRef {
        .privateDatabase(container, environment, owner: owner)
    }

    static func publicDB(_ environment: Environment = .development) -> DatabaseRef {
        .publicDatabase(container, environment)
    }

    static func field(_ value: JSONValue, _ type: String? = nil) -> FieldInput {
        FieldInput(value: value, type: type)
    }

    static func create(_ name: String, type: String = "Note", _ fields: [String: FieldInput] = [:]) -> RecordOperation {
        RecordOperation(type: .create, recordName: name, recordType: type, fields: fields)
    }

    /// Runs operations as `user` and returns the results.
    @discardableResult
    static func modify(
        _ store: any Store, _ zone: ZoneRef, _ operations: [RecordOperation], atomic: Bool = true, as user: String = alice
    ) async throws -> [RecordOperationResult] {
        try await store.modifyRecords(RecordBatch(
            zone: zone, operations: operations, atomic: atomic, caller: Caller(userRecordName: user), timestamp: now
        ))
    }

    /// Runs one operation and returns the saved record, failing the test otherwise.
    static func save(_ store: any Store, _ zone: ZoneRef, _ operation: RecordOperation, as user: String = alice) async throws -> Record {
        let results = try await modify(store, zone, [operation], as: user)
        guard case .saved(let record)? = results.first else {
            Issue.record("expected a saved record, got \(String(describing: results.first))")
            throw StorageError(.internalFailure, "not saved")
        }
        return record
    }

    /// The failure of a single-operation result, if it failed.
    static func failure(_ results: [RecordOperationResult], at index: Int = 0) -> RecordFailure? {
        guard results.indices.contains(index), case .failed(let failure) = results[index] else { return nil }
        return failure
    }

    static func createZone(_ store: any Store, _ name: String, in database: DatabaseRef = privateDB()) async throws -> ZoneRef {
        let results = try await store.modifyZones([.create(zoneName: name)], in: database)
        guard case .saved? = results.first else {
            throw StorageError(.internalFailure, "zone not created")
        }
        return database.zone(name)
    }

    static func fields(of record: Record) throws -> [String: FieldValue] {
        try record.fields.decode()
    }
}
