import Foundation

extension SyncEngine {
    /// One thing the engine did, for an app's sync screen or its logs (a Stratus addition):
    /// `"12:03:04 sent batch 7: 180 saved, 20 pending (networkFailure)"`.
    public struct TimelineEntry: Sendable, CustomStringConvertible {
        /// What happened.
        public enum Kind: Sendable {
            case fetchStarted
            case fetchedZone(Zone.ID, modified: Int, deleted: Int, refetched: Bool)
            case zoneFetchFailed(Zone.ID, StratusError)
            case fetchFinished
            case sendStarted
            case sentZones(saved: Int, deleted: Int, failed: Int)
            case sentBatch(number: Int, saved: Int, deleted: Int, failed: Int, pending: Int)
            case sendFinished
            /// An automatic fetch or send failed for a reason retrying fixes; the engine tries again after `after`.
            case retryScheduled(after: TimeInterval, error: StratusError)
            case accountChanged(previousUser: String?, currentUser: String?)
            case scopeNarrowed(removedZones: Int, keptRecordTypes: Set<String>?)
        }

        public var date: Date
        public var kind: Kind

        public init(date: Date = Date(), kind: Kind) {
            self.date = date
            self.kind = kind
        }

        /// The entry an event stands for; `nil` for events that are not steps of a sync (state updates, zone fetches
        /// starting).
        init?(event: Event) {
            switch event {
            case .willFetchChanges: kind = .fetchStarted
            case .didFetchChanges: kind = .fetchFinished
            case .willSendChanges: kind = .sendStarted
            case .didSendChanges: kind = .sendFinished
            case .fetchedRecordZoneChanges(let zoneID, let modifications, let deletions, let refetched):
                kind = .fetchedZone(zoneID, modified: modifications.count, deleted: deletions.count, refetched: refetched)
            case .didFetchRecordZoneChanges(let zoneID, let error?):
                kind = .zoneFetchFailed(zoneID, error)
            case .sentDatabaseChanges(let saved, let failedSaves, let deleted, let failedDeletes):
                kind = .sentZones(saved: saved.count, deleted: deleted.count, failed: failedSaves.count + failedDeletes.count)
            case .sentBatch(let receipt):
                var counts = (saved: 0, deleted: 0, failed: 0, pending: 0)
                for entry in receipt.entries {
                    switch entry.outcome {
                    case .saved: counts.saved += 1
                    case .deleted: counts.deleted += 1
                    case .failed: counts.failed += 1
                    case .pending: counts.pending += 1
                    }
                }
                kind = .sentBatch(number: receipt.number, saved: counts.saved, deleted: counts.deleted, failed: counts.failed, pending: counts.pending)
            case .accountChange(let previous, let current):
                kind = .accountChanged(previousUser: previous, currentUser: current)
            case .syncScopeNarrowed(let zones, let types):
                kind = .scopeNarrowed(removedZones: zones.count, keptRecordTypes: types)
            case .stateUpdate, .fetchedDatabaseChanges, .sentRecordZoneChanges, .willFetchRecordZoneChanges, .didFetchRecordZoneChanges:
                return nil
            }
            date = Date()
        }

        public var description: String {
            let time = ISO8601DateFormatter.string(from: date, timeZone: .current, formatOptions: [.withTime, .withColonSeparatorInTime])
            let what: String = switch kind {
            case .fetchStarted: "fetch started"
            case .fetchedZone(let zone, let modified, let deleted, let refetched):
                "fetched \(zone): \(modified) changed, \(deleted) deleted" + (refetched ? " (from the start)" : "")
            case .zoneFetchFailed(let zone, let error): "fetching \(zone) failed: \(error.code)"
            case .fetchFinished: "fetch finished"
            case .sendStarted: "send started"
            case .sentZones(let saved, let deleted, let failed): "sent zones: \(saved) saved, \(deleted) deleted, \(failed) failed"
            case .sentBatch(let number, let saved, let deleted, let failed, let pending):
                "sent batch \(number): \(saved) saved, \(deleted) deleted, \(failed) failed, \(pending) pending"
            case .sendFinished: "send finished"
            case .retryScheduled(let after, let error): "retrying in \(Int(after.rounded(.up))) s after \(error.code)"
            case .accountChanged(let previous, let current): "account changed from \(previous ?? "nobody") to \(current ?? "nobody")"
            case .scopeNarrowed(let zones, let types):
                "scope narrowed: \(zones) zones left" + (types.map { ", only \($0.sorted().joined(separator: ", "))" } ?? "")
            }
            return "\(time) \(what)"
        }
    }

    /// The most recent steps the engine took (up to ``timelineLength``), oldest first.
    public var timeline: [TimelineEntry] { timelineEntries }

    /// How many entries ``timeline`` keeps.
    public static let timelineLength = 500

    func record(_ entry: TimelineEntry) {
        timelineEntries.append(entry)
        if timelineEntries.count > Self.timelineLength { timelineEntries.removeFirst(timelineEntries.count - Self.timelineLength) }
    }
}
