import Foundation

/// A change the app made to a record, waiting to be sent (`CKSyncEngine.PendingRecordZoneChange`).
public enum PendingRecordZoneChange: Sendable, Hashable {
    /// Save the record with this ID; the engine asks the app for the record when it sends.
    case saveRecord(Record.ID)
    case deleteRecord(Record.ID)

    public var recordID: Record.ID {
        switch self {
        case .saveRecord(let id), .deleteRecord(let id): id
        }
    }
}

/// A change the app made to a zone, waiting to be sent (`CKSyncEngine.PendingDatabaseChange`).
public enum PendingDatabaseChange: Sendable, Hashable {
    case saveZone(Zone.ID)
    case deleteZone(Zone.ID)

    public var zoneID: Zone.ID {
        switch self {
        case .saveZone(let id), .deleteZone(let id): id
        }
    }
}

extension SyncEngine {
    /// What the engine keeps between launches: the changes waiting to be sent, the change tokens of the database
    /// and of each zone, and whose data it is. The app persists ``Serialization`` on every
    /// ``Event/stateUpdate(_:)`` and hands it back to the next engine.
    public struct State: Sendable, Hashable {
        /// Record changes waiting to be sent, oldest first; one per record (the last one asked for).
        public var pendingRecordZoneChanges: [PendingRecordZoneChange] {
            pendingRecords.values.sorted { $0.number < $1.number }.map(\.change)
        }
        /// The pending record changes by record, each with the number it was added under: adding and removing one
        /// costs the same however many wait.
        private var pendingRecords: [Record.ID: PendingEntry] = [:]

        struct PendingEntry: Sendable, Hashable {
            var number: Int
            var change: PendingRecordZoneChange
        }

        /// Whether a change of this record waits to be sent.
        package func isPending(_ id: Record.ID) -> Bool {
            pendingRecords[id] != nil
        }

        /// Whether any record change waits to be sent.
        var hasPendingRecordChanges: Bool {
            !pendingRecords.isEmpty
        }
        /// Zone changes waiting to be sent, oldest first; one per zone, but for a deletion and the save that makes the
        /// zone again after it.
        public internal(set) var pendingDatabaseChanges: [PendingDatabaseChange] = []
        var databaseToken: SyncToken?
        var zoneTokens: [Zone.ID: SyncToken] = [:]
        /// Zones that changed and that a fetch limited to other zones left for later.
        var unfetchedZones: Set<Zone.ID> = []
        /// The signed-in user the tokens and changes belong to.
        var userRecordName: String?
        /// What the engine fetches (``SyncEngine/setScope(_:)``).
        var scope = SyncScope.everything
        /// Record batches sent so far, across launches: the number of the last ``SyncEngine/BatchReceipt``.
        var batchesSent = 0
        /// The atomic group of each pending change that is in one (``SyncEngine/add(pendingRecordZoneChanges:atomicGroup:)``).
        var groups: [Record.ID: String] = [:]
        private var changesAdded = 0

        /// The number of a record's pending change, from a counter that only grows, so that a send that succeeds
        /// only removes what it sent, not a change the app added again meanwhile; `nil` when none waits.
        func version(of id: Record.ID) -> Int? {
            pendingRecords[id]?.number
        }

        /// Zones with a save waiting to be sent.
        var zonesToSave: Set<Zone.ID> {
            Set(pendingDatabaseChanges.compactMap { if case .saveZone(let id) = $0 { id } else { nil } })
        }

        /// Zones with a deletion waiting to be sent.
        var zonesToDelete: Set<Zone.ID> {
            Set(pendingDatabaseChanges.compactMap { if case .deleteZone(let id) = $0 { id } else { nil } })
        }

        /// Adds changes; a save replaces an earlier delete of the same record and the reverse.
        package mutating func add(_ changes: [PendingRecordZoneChange]) {
            for change in changes {
                changesAdded += 1
                pendingRecords[change.recordID] = PendingEntry(number: changesAdded, change: change)
            }
        }

        package mutating func remove(_ changes: [PendingRecordZoneChange]) {
            for change in changes where pendingRecords[change.recordID]?.change == change {
                pendingRecords[change.recordID] = nil
            }
            for change in changes where pendingRecords[change.recordID] == nil {
                groups[change.recordID] = nil
            }
        }

        /// Adds zone changes; a deletion replaces an earlier save of the zone, and a save after a deletion not sent yet
        /// goes after it (the zone is emptied, then made again).
        package mutating func add(_ changes: [PendingDatabaseChange]) {
            for change in changes {
                if case .saveZone(let id) = change, pendingDatabaseChanges.contains(.deleteZone(id)) {
                    pendingDatabaseChanges.removeAll { $0 == change }
                    pendingDatabaseChanges.append(change)
                    continue
                }
                pendingDatabaseChanges.removeAll { $0.zoneID == change.zoneID }
                pendingDatabaseChanges.append(change)
            }
        }

        package mutating func remove(_ changes: [PendingDatabaseChange]) {
            let removed = Set(changes)
            pendingDatabaseChanges.removeAll { removed.contains($0) }
        }

        /// The engine's state as bytes to keep (`CKSyncEngine.State.Serialization`). The bytes are made when first
        /// read, so a state update nobody keeps costs nothing, however many changes wait.
        public struct Serialization: Sendable, Hashable, Codable {
            private enum Storage: Sendable {
                case data(Data)
                case state(State)
            }

            private let storage: Storage

            /// The state as bytes.
            public var data: Data {
                switch storage {
                case .data(let data): data
                case .state(let state): state.encoded(withPendingChanges: true)
                }
            }

            /// The bytes without the pending changes, for an owner that keeps them itself, one by one (the local
            /// store): small whatever waits.
            package var dataWithoutPendingChanges: Data {
                switch storage {
                case .data(let data): (try? State(Serialization(data: data)))?.encoded(withPendingChanges: false) ?? data
                case .state(let state): state.encoded(withPendingChanges: false)
                }
            }

            public init(data: Data) {
                storage = .data(data)
            }

            init(state: State) {
                storage = .state(state)
            }

            public static func == (left: Serialization, right: Serialization) -> Bool {
                left.data == right.data
            }

            public func hash(into hasher: inout Hasher) {
                hasher.combine(data)
            }

            private enum CodingKeys: String, CodingKey {
                case data
            }

            public init(from decoder: any Decoder) throws {
                storage = .data(try decoder.container(keyedBy: CodingKeys.self).decode(Data.self, forKey: .data))
            }

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(data, forKey: .data)
            }
        }

        var serialization: Serialization {
            Serialization(state: self)
        }

        /// The state as JSON; without the pending changes when an owner keeps them.
        func encoded(withPendingChanges: Bool) -> Data {
            let pendingRecordZoneChanges = withPendingChanges ? pendingRecordZoneChanges : []
            let stored = Stored(
                pendingRecords: pendingRecordZoneChanges.map { change in
                    switch change {
                    case .saveRecord(let id): Stored.RecordChange(save: true, record: Stored.RecordID(id))
                    case .deleteRecord(let id): Stored.RecordChange(save: false, record: Stored.RecordID(id))
                    }
                },
                pendingZones: pendingDatabaseChanges.map { change in
                    switch change {
                    case .saveZone(let id): Stored.ZoneChange(save: true, zone: Stored.ZoneID(id))
                    case .deleteZone(let id): Stored.ZoneChange(save: false, zone: Stored.ZoneID(id))
                    }
                },
                databaseToken: databaseToken?.rawValue,
                zoneTokens: zoneTokens.map { Stored.ZoneToken(zone: Stored.ZoneID($0.key), token: $0.value.rawValue) }
                    .sorted { ($0.zone.name, $0.zone.owner) < ($1.zone.name, $1.zone.owner) },
                user: userRecordName,
                scope: scope == .everything ? nil : Stored.Scope(scope),
                batchesSent: batchesSent,
                groups: groups.isEmpty || !withPendingChanges ? nil : groups.map { Stored.GroupMember(record: Stored.RecordID($0.key), group: $0.value) }
                    .sorted { ($0.group, $0.record.name) < ($1.group, $1.record.name) },
                unfetched: unfetchedZones.isEmpty ? nil : unfetchedZones.map(Stored.ZoneID.init).sorted { ($0.name, $0.owner) < ($1.name, $1.owner) }
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return (try? encoder.encode(stored)) ?? Data()
        }

        package init() {}

        /// The state kept in `serialization`.
        /// - Throws: ``StratusError`` `invalidArguments` for bytes that are not an engine's state.
        package init(_ serialization: Serialization) throws {
            guard let stored = try? JSONDecoder().decode(Stored.self, from: serialization.data) else {
                throw StratusError(.invalidArguments, "the sync engine's saved state cannot be read")
            }
            add(stored.pendingRecords.map { $0.save ? .saveRecord($0.record.id) : .deleteRecord($0.record.id) })
            add(stored.pendingZones.map { $0.save ? .saveZone($0.zone.id) : .deleteZone($0.zone.id) })
            databaseToken = stored.databaseToken.map(SyncToken.init)
            zoneTokens = Dictionary(stored.zoneTokens.map { ($0.zone.id, SyncToken($0.token)) }, uniquingKeysWith: { _, last in last })
            userRecordName = stored.user
            scope = stored.scope?.scope ?? .everything
            batchesSent = stored.batchesSent ?? 0
            groups = Dictionary((stored.groups ?? []).map { ($0.record.id, $0.group) }, uniquingKeysWith: { _, last in last })
            unfetchedZones = Set((stored.unfetched ?? []).map(\.id))
        }
    }

    /// The saved form of ``State``: plain JSON, so it can be read by later versions.
    private struct Stored: Codable {
        struct ZoneID: Codable {
            var name: String
            var owner: String
            init(_ id: Zone.ID) { (name, owner) = (id.zoneName, id.ownerName) }
            var id: Zone.ID { Zone.ID(zoneName: name, ownerName: owner) }
        }
        struct RecordID: Codable {
            var name: String
            var zone: ZoneID
            init(_ id: Record.ID) { (name, zone) = (id.recordName, ZoneID(id.zoneID)) }
            var id: Record.ID { Record.ID(recordName: name, zoneID: zone.id) }
        }
        struct RecordChange: Codable {
            var save: Bool
            var record: RecordID
        }
        struct ZoneChange: Codable {
            var save: Bool
            var zone: ZoneID
        }
        struct ZoneToken: Codable {
            var zone: ZoneID
            var token: String
        }
        /// A scope with its sets sorted, so that equal states serialize alike.
        struct Scope: Codable {
            var zones: [ZoneID]?
            var recordTypes: [String]?
            var query: Query?
            init(_ scope: SyncScope) {
                zones = scope.zoneIDs.map { $0.sorted { ($0.zoneName, $0.ownerName) < ($1.zoneName, $1.ownerName) }.map(ZoneID.init) }
                recordTypes = scope.recordTypes?.sorted()
                query = scope.query
            }
            var scope: SyncScope { SyncScope(zoneIDs: zones.map { Set($0.map(\.id)) }, recordTypes: recordTypes.map(Set.init), query: query) }
        }
        var pendingRecords: [RecordChange]
        var pendingZones: [ZoneChange]
        var databaseToken: String?
        var zoneTokens: [ZoneToken]
        var user: String?
        struct GroupMember: Codable {
            var record: RecordID
            var group: String
        }
        /// Absent in states written before scopes, receipts and groups.
        var scope: Scope?
        var batchesSent: Int?
        var groups: [GroupMember]?
        /// Absent in states written before fetches limited to some zones.
        var unfetched: [ZoneID]?
    }
}
