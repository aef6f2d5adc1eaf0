import StratusModel

/// Queries, decided once for every backend: the store reads what planning needs (the schema and the indexes being
/// built), adds the indexes a development query lacks through its normal schema write, plans, and hands the backend
/// a ``PlannedQuery`` to run (``RecordStore/runQuery(_:)``).
extension RecordStore {
    public func queryRecords(_ request: RecordQuery) async throws -> QueryPage {
        try await StoreSpans.run("store.queryRecords", database: request.database, attributes: ["stratus.record_type": .string(request.query.recordType)]) {
            try await plannedAndRun(request)
        }
    }

    private func plannedAndRun(_ request: RecordQuery) async throws -> QueryPage {
        guard let planned = try await planQuery(request) else {
            // No record of this type can exist yet; a missing zone is still an error.
            if let zoneName = request.zoneName, zoneName != ZoneID.defaultZoneName,
                try await lookupZones([zoneName], in: request.database)[zoneName] == nil {
                throw ZoneRules.missing(zoneName)
            }
            return QueryPage(records: [], continuationMarker: nil)
        }
        return try await runQuery(planned)
    }

    /// The query as a backend runs it; `nil` when no record of its type can exist yet.
    /// - Throws: ``StorageError/Code/invalidArgument`` for a filter that does not fit the schema, a missing index in
    ///   production, or a marker of another query; ``StorageError/Code/unavailable`` while an index it needs is built.
    public func planQuery(_ request: RecordQuery) async throws -> PlannedQuery? {
        let database = request.database
        var schema = try await schema(containerID: database.containerID, environment: database.environment)
        guard let typed = try QueryTyper.typedQuery(request.query, schema: schema, environment: database.environment) else {
            return nil
        }
        if let type = schema.recordTypes[typed.recordType],
            let addition = try IndexPolicy.missingIndexes(for: typed, in: type, environment: database.environment) {
            schema = try await changeSchemas(containerID: database.containerID) { development, _ in
                addition.apply(to: &development)
                return development
            }
        }
        let typePrefix = typed.recordType + "."
        let building = try await indexesBeingBuilt(containerID: database.containerID, environment: database.environment)
        try IndexPolicy.requireBuilt(for: typed, building: building)
        let buildingOfType = Set(building.filter { $0.hasPrefix(typePrefix) }.map { String($0.dropFirst(typePrefix.count)) })
        return try PlannedQuery(request, typed: typed, type: schema.recordTypes[typed.recordType], building: buildingOfType)
    }
}
