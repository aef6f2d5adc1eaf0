import Foundation
import StratusKit

extension CKSyncEngine {
    /// A change the app made to a record, waiting to be sent.
    public enum PendingRecordZoneChange: Hashable, Sendable, CustomStringConvertible {
        case saveRecord(CKRecord.ID)
        case deleteRecord(CKRecord.ID)

        init(_ change: StratusKit.PendingRecordZoneChange) {
            switch change {
            case .saveRecord(let id): self = .saveRecord(CKRecord.ID(id))
            case .deleteRecord(let id): self = .deleteRecord(CKRecord.ID(id))
            }
        }

        var stratus: StratusKit.PendingRecordZoneChange {
            switch self {
            case .saveRecord(let id): .saveRecord(id.stratus)
            case .deleteRecord(let id): .deleteRecord(id.stratus)
            }
        }

        var recordID: CKRecord.ID {
            switch self {
            case .saveRecord(let id), .deleteRecord(let id): id
            }
        }

        public var description: String {
            switch self {
            case .saveRecord(let id): "saveRecord(\(id.recordName))"
            case .deleteRecord(let id): "deleteRecord(\(id.recordName))"
            }
        }
    }

    /// A change the app made to a zone, waiting to be sent.
    public enum PendingDatabaseChange: Hashable, Sendable, CustomStringConvertible {
        case saveZone(CKRecordZone)
        case deleteZone(CKRecordZone.ID)

        init(_ change: StratusKit.PendingDatabaseChange) {
            switch change {
            case .saveZone(let id): self = .saveZone(CKRecordZone(zoneID: CKRecordZone.ID(id)))
            case .deleteZone(let id): self = .deleteZone(CKRecordZone.ID(id))
            }
        }

        var stratus: StratusKit.PendingDatabaseChange {
            switch self {
            case .saveZone(let zone): .saveZone(zone.zoneID.stratus)
            case .deleteZone(let id): .deleteZone(id.stratus)
            }
        }

        public static func == (left: PendingDatabaseChange, right: PendingDatabaseChange) -> Bool {
            left.stratus == right.stratus
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(stratus)
        }

        public var description: String {
            switch self {
            case .saveZone(let zone): "saveZone(\(zone.zoneID.zoneName))"
            case .deleteZone(let id): "deleteZone(\(id.zoneName))"
            }
        }
    }

    /// What the engine keeps between launches: the changes waiting to be sent and the change tokens. Adding and
    /// removing pending changes is synchronous, as in CloudKit: they are visible here at once and reach the engine
    /// in order.
    public final class State: @unchecked Sendable, CustomStringConvertible {
        /// The state as bytes the app keeps (from each `.stateUpdate` event) and hands to the next engine.
        public struct Serialization: Codable, Sendable, Hashable, CustomStringConvertible {
            let stratus: SyncEngine.State.Serialization

            init(_ serialization: SyncEngine.State.Serialization) {
                stratus = serialization
            }

            public init(from decoder: any Decoder) throws {
                stratus = try SyncEngine.State.Serialization(from: decoder)
            }

            public func encode(to encoder: any Encoder) throws {
                try stratus.encode(to: encoder)
            }

            public var description: String { "<CKSyncEngine.State.Serialization: \(stratus.data.count) bytes>" }
        }

        enum Change: Sendable {
            case record(add: Bool, [StratusKit.PendingRecordZoneChange])
            case database(add: Bool, [StratusKit.PendingDatabaseChange])

            /// Hands the change to the engine.
            func apply(to engine: SyncEngine) async {
                switch self {
                case .record(true, let changes): await engine.add(pendingRecordZoneChanges: changes)
                case .record(false, let changes): await engine.remove(pendingRecordZoneChanges: changes)
                case .database(true, let changes): await engine.add(pendingDatabaseChanges: changes)
                case .database(false, let changes): await engine.remove(pendingDatabaseChanges: changes)
                }
            }

            func apply(to state: inout SyncEngine.State) {
                switch self {
                case .record(true, let changes): state.add(changes)
                case .record(false, let changes): state.remove(changes)
                case .database(true, let changes): state.add(changes)
                case .database(false, let changes): state.remove(changes)
                }
            }
        }

        /// The changes an app adds while it handles an event: the engine takes them when the handler returns, before
        /// it goes on (a merged conflict or a zone to make again is sent in the same send).
        final class HandlerChanges: @unchecked Sendable {
            private let lock = NSLock()
            private var changes: [(number: Int, change: Change)] = []
            private var open = true

            /// Keeps a change; `false` once the handler returned.
            func keep(_ number: Int, _ change: Change) -> Bool {
                lock.withLock {
                    guard open else { return false }
                    changes.append((number, change))
                    return true
                }
            }

            func close() -> [(number: Int, change: Change)] {
                lock.withLock {
                    open = false
                    return changes
                }
            }
        }

        @TaskLocal static var handlerChanges: HandlerChanges?

        private let lock = NSLock()
        /// The engine's state as last reported, with the changes not applied to it yet on top.
        private var mirror: SyncEngine.State
        private var unapplied: [(number: Int, change: Change)] = []
        private var changesMade = 0
        private var forwarding: Task<Void, Never>?
        private var unfetched: [CKRecordZone.ID] = []
        private let untracked: Locked<Bool>
        private let engine: SyncEngine

        init(engine: SyncEngine, restoring serialization: Serialization?, untracked: Locked<Bool>) {
            self.engine = engine
            self.untracked = untracked
            mirror = (try? serialization.map { try SyncEngine.State($0.stratus) }) ?? SyncEngine.State()
        }

        public var pendingRecordZoneChanges: [PendingRecordZoneChange] {
            lock.withLock { mirror.pendingRecordZoneChanges }.map(PendingRecordZoneChange.init)
        }

        public var pendingDatabaseChanges: [PendingDatabaseChange] {
            lock.withLock { mirror.pendingDatabaseChanges }.map(PendingDatabaseChange.init)
        }

        /// Set it when the app has changes it does not add as pending ones: the next send asks the delegate for
        /// batches even when no change is pending, until the delegate answers `nil`.
        public var hasPendingUntrackedChanges: Bool {
            get { untracked.withLock { $0 } }
            set {
                untracked.withLock { $0 = newValue }
                if newValue { Task { [engine] in await engine.requestSend() } }
            }
        }

        /// Zones that changed on the server and that a fetch limited to other zones has not fetched yet.
        public var zoneIDsWithUnfetchedServerChanges: [CKRecordZone.ID] { lock.withLock { unfetched } }

        public func add(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            apply(.record(add: true, changes.map(\.stratus)))
        }

        public func remove(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            apply(.record(add: false, changes.map(\.stratus)))
        }

        public func add(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            apply(.database(add: true, changes.map(\.stratus)))
        }

        public func remove(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            apply(.database(add: false, changes.map(\.stratus)))
        }

        /// Applies a change here at once and hands it to the engine: when the handler of an event returns, for a
        /// change made there, else after the changes before it.
        private func apply(_ change: Change) {
            let handler = Self.handlerChanges
            lock.withLock {
                change.apply(to: &mirror)
                changesMade += 1
                let number = changesMade
                unapplied.append((number, change))
                if handler?.keep(number, change) == true { return }
                let previous = forwarding
                forwarding = Task { [engine] in
                    await previous?.value
                    await change.apply(to: engine)
                    self.applied(number)
                }
            }
        }

        /// A change the engine has taken.
        func applied(_ number: Int) {
            lock.withLock { unapplied.removeAll { $0.number == number } }
        }

        /// Waits until every change added so far has reached the engine.
        func flush() async {
            await lock.withLock { forwarding }?.value
        }

        /// Takes the engine's state as it reported it, with the changes still on their way to it on top.
        func refresh(from state: SyncEngine.State, unfetchedZones: [Zone.ID]) {
            lock.withLock {
                var state = state
                for (_, change) in unapplied { change.apply(to: &state) }
                mirror = state
                unfetched = unfetchedZones.map(CKRecordZone.ID.init)
            }
        }

        /// Ends the untracked changes once the delegate has nothing more to send.
        func untrackedChangesSent() {
            untracked.withLock { $0 = false }
        }

        public var description: String {
            "<CKSyncEngine.State: \(pendingRecordZoneChanges.count) record changes, \(pendingDatabaseChanges.count) zone changes pending>"
        }
    }
}
